import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@githost/config';
import { createLogger } from '@githost/logging';
import { processPerService, requireBrokerForProcesses, ServiceProcesses } from './processes.js';
import { reserveLoopbackPort } from './public-port.js';

describe('process per service option', () => {
  it('when GITHOST_PROCESS_PER_SERVICE is unset or empty, then every service runs in one process; the option wins over the variable', () => {
    expect([processPerService(undefined, undefined), processPerService(undefined, ''), processPerService(undefined, ' true '), processPerService(undefined, '1'), processPerService(undefined, 'false'), processPerService(false, 'true')]).toEqual([false, false, true, true, false, false]);
  });

  it('when GITHOST_PROCESS_PER_SERVICE is not a boolean, then start-up fails naming it', () => {
    expect(() => processPerService(undefined, 'split')).toThrow(ConfigError);
    expect(() => processPerService(undefined, 'split')).toThrow(/GITHOST_PROCESS_PER_SERVICE/);
  });

  it('when there is no RabbitMQ, then one process per service is refused naming AMQP_URL', () => {
    expect(() => requireBrokerForProcesses(undefined)).toThrow(/GITHOST_PROCESS_PER_SERVICE=true needs AMQP_URL/);
    expect(() => requireBrokerForProcesses('amqp://127.0.0.1')).not.toThrow();
  });
});

describe('a service process\'s environment and V8 flags', () => {
  /** Starts `module` from a stand-in child that writes what it was started with, then reads that. */
  async function startedWith(module: string, childEnv: NodeJS.ProcessEnv): Promise<{ mmapThreshold: string | null; topPad: string | null; execArgv: string[] }> {
    const dir = mkdtempSync(join(tmpdir(), 'githost-processes-'));
    const entry = join(dir, 'child.cjs');
    const out = join(dir, 'out.json');
    writeFileSync(
      entry,
      `require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ mmapThreshold: process.env.MALLOC_MMAP_THRESHOLD_ ?? null, topPad: process.env.MALLOC_TOP_PAD_ ?? null, execArgv: process.execArgv }));
process.send({ type: 'started', ports: {} });
setInterval(() => undefined, 1000);`,
    );
    const processes = new ServiceProcesses(createLogger('launcher-test'), entry);
    try {
      await processes.start(module, module, 1, { PATH: process.env.PATH, ...childEnv });
      return JSON.parse(readFileSync(out, 'utf8')) as { mmapThreshold: string | null; topPad: string | null; execArgv: string[] };
    } finally {
      await processes.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('when the ssh process starts, then glibc maps its buffers of 4 KiB and more on their own (MALLOC_MMAP_THRESHOLD_=4096) without padding its heap (MALLOC_TOP_PAD_=0) and its young generation is 1 MiB, collected from 1 % full', async () => {
    const started = await startedWith('ssh', {});
    expect(started.mmapThreshold).toBe('4096');
    expect(started.topPad).toBe('0');
    expect(started.execArgv).toEqual(expect.arrayContaining(['--max-semi-space-size=1', '--minor-gc-task-trigger=1', '--expose-gc']));
  });


  it('when the launcher\'s environment sets MALLOC_MMAP_THRESHOLD_, then the ssh process gets that value', async () => {
    expect((await startedWith('ssh', { MALLOC_MMAP_THRESHOLD_: '65536' })).mmapThreshold).toBe('65536');
  });

  it('when another service\'s process starts, then it gets neither the ssh process\'s malloc setting nor its V8 flag', async () => {
    const started = await startedWith('browse', {});
    expect(started.mmapThreshold).toBeNull();
    expect(started.topPad).toBeNull();
    expect(started.execArgv).not.toContain('--max-semi-space-size=1');
    expect(started.execArgv).not.toContain('--minor-gc-task-trigger=1');
    expect(started.execArgv).not.toContain('--initial-old-space-size=64');
  });

  it('when the git-storage process starts, then it has room for 64 MiB of old generation and none of the ssh process\'s settings', async () => {
    const started = await startedWith('git-storage', {});
    expect(started.execArgv).toEqual(expect.arrayContaining(['--initial-old-space-size=64']));
    expect(started.execArgv).not.toContain('--max-semi-space-size=1');
    expect(started.mmapThreshold).toBeNull();
  });
});

describe('a service process\'s reserved gRPC port', () => {
  /**
   * Starts `accounts` on a reserved port from a stand-in child that tries to bind the port on
   * arrival, asks for it ('release-port') when the launcher holds it for it, tries again once
   * freed, and writes what it saw.
   */
  async function portSeen(foreign: boolean): Promise<{ held: string | null; onArrival: string; whenAsked: string | null }> {
    const dir = mkdtempSync(join(tmpdir(), 'githost-processes-'));
    const entry = join(dir, 'child.cjs');
    const out = join(dir, 'out.json');
    writeFileSync(
      entry,
      `const net = require('node:net');
const port = Number(process.env.GRPC_PORT);
const held = process.env.GITHOST_GRPC_PORT_HELD ?? null;
const tryBind = () => new Promise((resolve) => {
  const server = net.createServer();
  server.once('error', (err) => resolve(err.code));
  server.listen(port, '127.0.0.1', () => server.close(() => resolve('bound')));
});
const done = (seen) => {
  require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(seen));
  process.send({ type: 'started', ports: { grpcPort: port } });
};
tryBind().then((onArrival) => {
  if (held !== 'true') return done({ held, onArrival, whenAsked: null });
  process.on('message', (message) => {
    if (message === 'port-released') tryBind().then((whenAsked) => done({ held, onArrival, whenAsked }));
  });
  process.send({ type: 'release-port' });
});
setInterval(() => undefined, 1000);`,
    );
    const processes = new ServiceProcesses(createLogger('launcher-test'), foreign ? join(dir, 'unused.cjs') : entry, () => (foreign ? entry : undefined));
    const reserved = await reserveLoopbackPort();
    try {
      await processes.start('accounts', 'accounts', 1, { PATH: process.env.PATH, GRPC_PORT: String(reserved.port) }, undefined, reserved);
      return JSON.parse(readFileSync(out, 'utf8')) as { held: string | null; onArrival: string; whenAsked: string | null };
    } finally {
      await processes.stop();
      await reserved.release();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('when this build\'s service process starts, then the launcher holds its port bound until the process asks for it, and frees it then', async () => {
    expect(await portSeen(false)).toEqual({ held: 'true', onArrival: 'EADDRINUSE', whenAsked: 'bound' });
  });

  it('when another build\'s process runs the service (mixed versions), then the port is free before it starts, since it may not ask', async () => {
    expect(await portSeen(true)).toEqual({ held: null, onArrival: 'bound', whenAsked: null });
  });
});
