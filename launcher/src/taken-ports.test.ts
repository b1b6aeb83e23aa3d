import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@githost/config';
import { startGithost } from './index.js';

// `npm start` beside a running githost: a taken port stops the start with one line naming the
// variable, the port and what to do (docs/configuration.md#two-instances-side-by-side).
const LAUNCHER_DIR = fileURLToPath(new URL('..', import.meta.url));
let dir: string;
let taken: Server;
let takenPort: number;

beforeAll(async () => {
  // The launcher's process runs its built entry (plain node): build it from these sources.
  execFileSync(process.execPath, [path.join(LAUNCHER_DIR, '..', 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(LAUNCHER_DIR, 'tsconfig.build.json')], { stdio: 'inherit' });
  dir = mkdtempSync(path.join(tmpdir(), 'githost-ports-'));
  // Held on every interface, as a running githost holds its ports.
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, resolve));
  takenPort = (taken.address() as { port: number }).port;
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => taken.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** `node launcher/dist/main.js` with this environment: its exit code and what it wrote to stderr. */
function launch(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [path.join(LAUNCHER_DIR, 'dist', 'main.js')], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: path.join(dir, 'data'), GITHOST_ADMIN_TOKEN: 'ports-test-admin-token', LOG_LEVEL: 'silent', ...env },
      timeout: 60_000,
    }, (_err, _stdout, stderr) => resolve({ code: child.exitCode, stderr }));
  });
}

describe('a port that is taken', () => {
  it('when PORT is taken, then the launcher exits 1 with one line naming PORT, the port and what to do', async () => {
    const { code, stderr } = await launch({ PORT: String(takenPort), METRICS_PORT: '0' });
    expect([code, stderr]).toEqual([1, `PORT=${takenPort} is already in use (another githost or another program listens on it): set PORT to a free port, or PORT=0 to pick one\n`]);
  }, 60_000);

  it('when METRICS_PORT is taken (a second instance on its own PORT and DATA_DIR), then the launcher exits 1 with one line naming METRICS_PORT', async () => {
    const { code, stderr } = await launch({ PORT: '0', METRICS_PORT: String(takenPort) });
    expect([code, stderr]).toEqual([1, `METRICS_PORT=${takenPort} is already in use (another githost or another program listens on it): set METRICS_PORT to a free port, or METRICS_PORT=0 to pick one\n`]);
  }, 60_000);

  it('when SSH_PORT is taken, then the launcher exits 1 with one line naming SSH_PORT', async () => {
    const { code, stderr } = await launch({ PORT: '0', METRICS_PORT: '0', SSH_PORT: String(takenPort) });
    expect([code, stderr]).toEqual([1, `SSH_PORT=${takenPort} is already in use (another githost or another program listens on it): set SSH_PORT to a free port, or SSH_PORT=0 to pick one\n`]);
  }, 60_000);

  it('when the public port is taken, then startGithost rejects with that ConfigError before any service runs', async () => {
    await expect(startGithost({ port: takenPort, metricsPort: 0, dataDir: path.join(dir, 'in-process'), adminToken: 'ports-test-admin-token' })).rejects.toThrow(ConfigError);
  });
});
