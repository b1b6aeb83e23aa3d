import { beforeEach, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { waitFor } from '@githost/test-support';
import { gatewaysPerTest, type EchoUpstream } from './support/gateways-per-test.js';

// A request body that goes silent is the client's fault: 408 on every route, never a 503 after
// an upstream's two minutes (docs/security.md#malformed-requests, GITHOST_BODY_TIMEOUT_MS).
const SECRET = 'gateway-body-timeout-secret';
const alice = { id: 'u-alice', username: 'alice', token: 'alice-token-aaaaaaaaaaaaaaaa' };
/** Short, so the test is quick; the default is 30 s. */
const BODY_TIMEOUT_MS = 300;

const { upstream: echo, gatewayWith } = gatewaysPerTest(SECRET, [alice]);
let port: number;
let upstream: EchoUpstream;

beforeEach(async () => {
  port = Number(new URL(await gatewayWith({ bodyTimeoutMs: BODY_TIMEOUT_MS })).port);
  upstream = echo();
});

interface Outcome {
  status: number;
  body: string;
  connection: string | undefined;
}

/** Sends the headers and `parts` one by one, `gapMs` apart, and ends the body only when `end`. */
function send(path: string, headers: Record<string, string>, parts: string[], opts: { gapMs?: number; end?: boolean } = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
    });
    req.on('error', reject);
    void (async () => {
      for (const part of parts) {
        req.write(part);
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      }
      if (opts.end) req.end();
    })();
  });
}

const bearer = { authorization: `Bearer ${alice.token}` };

describe('a request body that goes silent', () => {
  it('when an API body stops short of its Content-Length, then 408 Request timeout, the connection closes and the service sees an aborted request', async () => {
    const before = upstream.seen.length;
    const res = await send('/api/repos', { ...bearer, 'content-type': 'application/json', 'content-length': '100' }, ['{"name":']);
    expect(res).toEqual({ status: 408, body: JSON.stringify({ error: 'Request timeout' }), connection: 'close' });
    await waitFor(() => upstream.seen.length > before, 'the service to see the request end');
    expect(upstream.seen.slice(before).map((s) => [s.url, s.complete])).toEqual([['/api/repos', false]]);
  });

  it('when a push (chunked) goes silent part way, then 408 too, and the push is torn down upstream', async () => {
    const before = upstream.seen.length;
    const basic = `Basic ${Buffer.from(`alice:${alice.token}`).toString('base64')}`;
    const res = await send('/alice/demo.git/git-receive-pack', { authorization: basic, 'content-type': 'application/x-git-receive-pack-request', 'transfer-encoding': 'chunked' }, ['0000PACK']);
    expect(res).toEqual({ status: 408, body: JSON.stringify({ error: 'Request timeout' }), connection: 'close' });
    await waitFor(() => upstream.seen.length > before, 'the service to see the request end');
    expect(upstream.seen.slice(before).map((s) => [s.url, s.complete])).toEqual([['/alice/demo.git/git-receive-pack', false]]);
  });

  it('when a body is slow but never silent for the limit, then it goes through whole, however long it takes in all', async () => {
    const parts = Array.from({ length: 8 }, (_, i) => `"${i}",`);
    const body = `[${parts.join('')}"end"]`;
    const res = await send('/api/repos', { ...bearer, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, ['[', ...parts, '"end"]'], { gapMs: BODY_TIMEOUT_MS / 3, end: true });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ url: '/api/repos', complete: true, body_bytes: Buffer.byteLength(body) });
  });

  it('when the whole body arrived, then a slow answer is not the client\'s fault and the connection is kept', async () => {
    const res = await send('/api/repos', { ...bearer, 'content-type': 'application/json' }, ['{"name":"x"}'], { end: true });
    expect([res.status, res.connection]).toEqual([200, 'keep-alive']);
  });
});
