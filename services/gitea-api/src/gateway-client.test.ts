import { afterAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import type { Request } from 'express';
import { PartnerCheck } from '@githost/api-client';
import { encodeIdentity, type Identity, type Permission } from '@githost/identity';
import { callerOf, GatewayClient } from './gateway-client.js';

const SECRET = 'test-internal-secret';
const repo = (permission: Permission) => ({ id: 'r1', owner: 'alice', name: 'demo', default_branch: 'main', private: true, shard: 's1', owner_id: 'u1', permission });
const rita = { user_id: 'u2', username: 'Rita', email: 'rita@example.com', is_admin: false };
const signed = (identity: Partial<Identity>, authorization = 'token abc') =>
  ({ headers: { authorization, ...encodeIdentity({ principal: null, repo: null, request_id: 'req-1', issued_at: Date.now(), ...identity }, SECRET) }, query: {} }) as unknown as Request;

describe('callerOf', () => {
  it('when the gateway signed a caller with a repository they may read, then the face knows them by name without asking GET /api/user', () => {
    const caller = callerOf(signed({ principal: rita, repo: repo('read') }), SECRET);
    expect([caller.username, caller.repo?.permission]).toEqual(['Rita', 'read']);
    expect(new GatewayClient('http://gateway', caller).signedUsername).toBe('Rita');
  });

  it('when the repository is not readable, not signed, or the signature is forged, then no caller is named', () => {
    expect(callerOf(signed({ principal: rita, repo: repo('none') }), SECRET).username).toBeUndefined();
    expect(callerOf(signed({ principal: rita, repo: null }), SECRET).username).toBeUndefined();
    expect(callerOf(signed({ principal: rita, repo: repo('write') }), 'another-secret').username).toBeUndefined();
  });
});

describe('GatewayClient with a fallback (docs/decisions/replicas.md#the-gitea-compatible-faces-own-gateway)', () => {
  const received: string[] = [];
  const fallback = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(`${req.method} ${req.url} ${body}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ from: 'fallback' }));
    });
  });
  afterAll(() => new Promise((r) => fallback.close(r)));
  const port = (s: { address(): unknown }) => (s.address() as AddressInfo).port;
  const listening = <S extends { listen(port: number, host: string, cb: () => void): unknown }>(s: S) => new Promise<S>((r) => s.listen(0, '127.0.0.1', () => r(s)));

  it('when its own gateway refuses the connection, then JSON reads, raw reads and writes are each sent once to the fallback', async () => {
    await listening(fallback);
    const closed = await listening(createTcpServer());
    const ownPort = port(closed);
    await new Promise((r) => closed.close(r));
    const client = new GatewayClient(`http://127.0.0.1:${ownPort}`, callerOf(signed({}), SECRET), `http://127.0.0.1:${port(fallback)}`);
    expect(await client.get('/api/repos/alice/demo' as never)).toEqual({ from: 'fallback' });
    expect((await client.bytes('/api/repos/alice/demo/raw/main/README.md')).body.toString()).toBe('{"from":"fallback"}');
    expect(await client.call('POST', '/api/repos/alice/demo/webhooks' as never, { url: 'http://hook' })).toEqual({ from: 'fallback' });
    expect(received).toEqual(['GET /api/repos/alice/demo ', 'GET /api/repos/alice/demo/raw/main/README.md ', 'POST /api/repos/alice/demo/webhooks {"url":"http://hook"}']);
  });

  it('when its own gateway hangs (takes connections, never answers) and its check marks it down, then raw reads, JSON reads and writes go straight to the fallback', async () => {
    if (!fallback.listening) await listening(fallback);
    const held: import('node:http').ServerResponse[] = [];
    const hung = await listening(createServer((_req, res) => void held.push(res)));
    const check = new PartnerCheck({ url: `http://127.0.0.1:${port(hung)}`, name: 'gateway' }).start();
    try {
      const start = Date.now();
      // A bound, not a timing: two failed checks take about 2-3 s.
      while (check.up && Date.now() - start < 10_000) await new Promise((r) => setTimeout(r, 50));
      expect(check.up).toBe(false);
      const checks = held.length;
      received.length = 0;
      const client = new GatewayClient(`http://127.0.0.1:${port(hung)}`, callerOf(signed({}), SECRET), `http://127.0.0.1:${port(fallback)}`, check);
      expect((await client.bytes('/api/repos/alice/demo/raw/main/README.md')).body.toString()).toBe('{"from":"fallback"}');
      expect(await client.get('/api/repos/alice/demo' as never)).toEqual({ from: 'fallback' });
      expect(await client.call('POST', '/api/repos/alice/demo/webhooks' as never, { url: 'http://hook' })).toEqual({ from: 'fallback' });
      expect(received).toEqual(['GET /api/repos/alice/demo/raw/main/README.md ', 'GET /api/repos/alice/demo ', 'POST /api/repos/alice/demo/webhooks {"url":"http://hook"}']);
      // Only health checks reached the hung gateway (at most one more meanwhile), none of the calls.
      expect(held.slice(checks).every((res) => res.req.url === '/readyz')).toBe(true);
    } finally {
      check.stop();
      held.forEach((res) => res.destroy());
      hung.closeAllConnections();
      await new Promise((r) => hung.close(r));
    }
  }, 30_000);

  it('without a fallback, then a refused connection is the unavailable error', async () => {
    const closed = await listening(createTcpServer());
    const ownPort = port(closed);
    await new Promise((r) => closed.close(r));
    const client = new GatewayClient(`http://127.0.0.1:${ownPort}`, callerOf(signed({}), SECRET));
    await expect(client.get('/api/repos/alice/demo' as never)).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
