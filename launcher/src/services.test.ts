import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { createLogger } from '@githost/logging';
import { releaseForBind } from '@githost/runtime/held-ports';
import { InProcessServices } from './in-process.js';
import { reserveLoopbackPort } from './public-port.js';
import { asServiceModule, loadService, STAGES } from './services.js';

describe('service modules', () => {
  it('when a package does not export createServer and loadConfig, then it is no service and says which is missing', () => {
    expect(() => asServiceModule('browse', {})).toThrow('browse: its package exports no loadConfig and no createServer function: it cannot be started');
    expect(() => asServiceModule('browse', { loadConfig: () => ({}) })).toThrow('browse: its package exports no createServer function: it cannot be started');
    expect(() => asServiceModule('browse', undefined)).toThrow(/browse: its package exports no loadConfig/);
  });

  it('when it does, then it is used as is', () => {
    const mod = { loadConfig: () => ({}), createServer: () => ({ start: async () => ({}), stop: async () => undefined }) };
    expect(asServiceModule('browse', mod)).toBe(mod);
  });

  it('when every package is loaded, then each one is a service', async () => {
    for (const name of [...STAGES.flat().map((s) => s.name), 'gateway']) {
      const mod = await loadService(name);
      expect([name, typeof mod.loadConfig, typeof mod.createServer]).toEqual([name, 'function', 'function']);
    }
    await expect(loadService('nothing')).rejects.toThrow('no service named "nothing"');
  });

  it('when a service package has a broken export, then starting it fails instead of skipping it', async () => {
    const broken = async () => ({ loadConfig: () => ({}), createServer: 'not a function' });
    const services = new InProcessServices(undefined, undefined, createLogger('launcher-test'), undefined, (module) => loadService(module, broken));
    await expect(services.start('webhooks', 'webhooks', 2, {})).rejects.toThrow('webhooks: its package exports no createServer function: it cannot be started');
    await services.stop();
  });

  it('when a service starts on its reserved gRPC port, then the port stays bound until the service\'s server binds it (packages/grpc asks for it then)', async () => {
    const reserved = await reserveLoopbackPort();
    const tryBind = () =>
      new Promise<string>((resolve) => {
        const server = createServer();
        server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
        server.listen(reserved.port, '127.0.0.1', () => server.close(() => resolve('bound')));
      });
    const seen: string[] = [];
    const mod = {
      loadConfig: () => ({}),
      createServer: () => ({
        start: async () => {
          seen.push(await tryBind());
          await releaseForBind(reserved.port); // what startGrpcServer does before its bind
          seen.push(await tryBind());
          return { grpcPort: reserved.port };
        },
        stop: async () => undefined,
      }),
    };
    const services = new InProcessServices(undefined, undefined, createLogger('launcher-test'), undefined, async () => mod);
    try {
      await services.start('accounts', 'accounts', 1, {}, undefined, reserved);
      expect(seen).toEqual(['EADDRINUSE', 'bound']);
    } finally {
      await services.stop();
      await reserved.release();
    }
  });

  it('when a start fails before every service started, then stopping ends, and a publish held until then fails (its producer keeps the event)', async () => {
    let held: Promise<unknown> | undefined;
    const mod = {
      loadConfig: () => ({}),
      createServer: (_config: unknown, deps: { bus?: { publish(e: unknown): Promise<void> } }) => ({
        start: async () => {
          // As git-storage's journal relay does at its start: a publish whose pass its stop() awaits.
          held = deps.bus!.publish({ id: 'e1', kind: 'push', occurred_at: new Date().toISOString(), repository: { id: 'r' }, payload: {} }).then(() => 'published', () => 'failed');
          return {};
        },
        stop: async () => void (await held),
      }),
    };
    const services = new InProcessServices(undefined, undefined, createLogger('launcher-test'), undefined, async () => mod as never);
    await services.start('git-storage', 'git-storage', 0, {});
    await services.stop();
    expect(await held).toBe('failed');
  });

  it('when services start, then each stage only needs addresses from the stages before it', () => {
    expect(STAGES.map((stage) => stage.map((s) => s.name))).toEqual([['git-storage'], ['accounts', 'ssh'], ['browse', 'merge-requests', 'webhooks', 'web', 'gitea-api']]);
    const storage = STAGES[0]![0]!.exports({ httpPort: 1001, grpcPort: 1002 });
    expect(storage).toEqual({ GIT_STORAGE_GRPC_ADDR: '127.0.0.1:1002', GIT_STORAGE_HTTP_URL: 'http://127.0.0.1:1001' });
    expect(STAGES[1]![0]!.exports({ httpPort: 2001 })).toEqual({ ACCOUNTS_HTTP_URL: 'http://127.0.0.1:2001' });
    expect(STAGES[1]![1]!.exports({ httpPort: 2002 })).toEqual({ SSH_HTTP_URL: 'http://127.0.0.1:2002' });
  });
});
