import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

beforeAll(() => {
  // The fixture runs the built module, as a service's dist/main.js does.
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: path.join(here, '..') });
}, 120_000);

function run(count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    // A slow reader keeps the pipe full, so writes are partial and queued when the process exits.
    const child = spawn(process.execPath, [path.join(here, 'fixture.mjs'), String(count)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), 200);
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.on('error', reject);
    child.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe('loggers on stdout', () => {
  it('when two services log many lines and the process exits at once, then every line arrives whole, none lost or interleaved', async () => {
    const count = 2000;
    const lines = (await run(count)).split('\n').filter((l) => l !== '');
    const parsed = lines.map((l) => JSON.parse(l) as { service: string; i: number });
    expect(parsed).toHaveLength(2 * count);
    for (const service of ['gateway', 'browse']) {
      expect(parsed.filter((l) => l.service === service).map((l) => l.i)).toEqual(Array.from({ length: count }, (_, i) => i));
    }
  }, 30_000);
});
