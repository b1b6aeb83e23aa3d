import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, 'fixture.mjs');

function run(mode: string, signal?: NodeJS.Signals): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fixture, mode], { env: { ...process.env, LOG_LEVEL: 'silent' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (signal && (stdout.includes('started') || stdout.includes('booting')) && !child.killed) child.kill(signal);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  // The fixture runs the built module, as a service's dist/main.js does.
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: path.join(here, '..') });
}, 120_000);

describe('runUntilSignalled', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('when the process gets %s, then it stops gracefully and exits 0', async (signal) => {
    expect(await run('ok', signal)).toMatchObject({ code: 0, stdout: 'started\nstopped\n' });
  });
  it('when a signal arrives while the service is still starting, then it stops right after starting and exits 0', async () => {
    expect(await run('slow', 'SIGTERM')).toMatchObject({ code: 0, stdout: 'booting\nstarted\nstopped\n' });
  });
  it('when the configuration is bad, then it exits 1 with the message naming the variable and no stack', async () => {
    const r = await run('bad-config');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('fixture: invalid configuration:\n  PORT: expected a number\n');
  });
  it('when boot fails otherwise, then it exits 1', async () => {
    expect((await run('crash')).code).toBe(1);
  });
});
