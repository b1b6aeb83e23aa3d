import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, loadConfig, type Service } from '../src/index.js';

const SECRET = 'gateway-listen-test-secret';
const running: Service[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

async function startWith(env: Record<string, string>): Promise<{ httpPort: number; metricsPort: number }> {
  // Accounts is not reachable: listening needs none of it.
  const gateway = createServer(loadConfig({ GITHOST_INTERNAL_SECRET: SECRET, ACCOUNTS_GRPC_ADDR: '127.0.0.1:1', PORT: '0', METRICS_PORT: '0', ...env }));
  running.push(gateway);
  return gateway.start();
}

/** Whether anything answers on host:port (127.0.0.2 is loopback too, but only a 0.0.0.0 listener takes it). */
const answers = (host: string, port: number, path: string) =>
  fetch(`http://${host}:${port}${path}`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.status, (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message);

describe('gateway listeners and BIND_HOST', () => {
  it('when BIND_HOST is 127.0.0.1, then the metrics and public listeners answer on 127.0.0.1 only', async () => {
    const ports = await startWith({ BIND_HOST: '127.0.0.1' });
    expect(await answers('127.0.0.1', ports.metricsPort, '/metrics')).toBe(200);
    expect(await answers('127.0.0.2', ports.metricsPort, '/metrics')).toBe('ECONNREFUSED');
    expect(await answers('127.0.0.1', ports.httpPort, '/healthz')).toBe(200);
    expect(await answers('127.0.0.2', ports.httpPort, '/healthz')).toBe('ECONNREFUSED');
  });

  it('when BIND_HOST is unset, then both listen on every interface, as a container deployment needs', async () => {
    const ports = await startWith({});
    expect(await answers('127.0.0.2', ports.metricsPort, '/metrics')).toBe(200);
    expect(await answers('127.0.0.2', ports.httpPort, '/healthz')).toBe(200);
  });
});
