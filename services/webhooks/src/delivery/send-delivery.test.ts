import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliveryClient, MAX_RESPONSE_BODY_BYTES, sendDelivery } from './send-delivery.js';

describe('sendDelivery through the worker client', () => {
  let server: http.Server;
  let url: string;
  const seen: Array<{ method?: string; headers: http.IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() });
        if (req.url === '/big') res.writeHead(200).end('x'.repeat(3 * MAX_RESPONSE_BODY_BYTES));
        else res.writeHead(202, { 'retry-after': '7' }).end('accepted');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('when a client is made, then got holds no cache options, so building each request stays cheap (the spread of a non-empty object costs ~70 µs on Node 20)', () => {
    const client = deliveryClient({ timeoutMs: 1000, allowPrivate: true });
    expect(Object.keys(client.defaults.options.cacheOptions)).toEqual([]);
  });

  it('when a delivery is posted, then the receiver gets the body and headers, and the answer, its body and Retry-After come back', async () => {
    const client = deliveryClient({ timeoutMs: 1000, allowPrivate: true });
    const result = await sendDelivery(client, `${url}/hook`, { 'content-type': 'application/json', 'x-githost-event': 'push' }, '{"ref":"refs/heads/main"}', { allowPrivate: true });
    expect(result.outcome).toEqual({ kind: 'response', status: 202, retryAfterSeconds: 7 });
    expect(result.responseBody).toBe('accepted');
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: '{"ref":"refs/heads/main"}', headers: { 'content-type': 'application/json', 'x-githost-event': 'push' } });
  });

  it('when the receiver answers a large body, then only the first 4,096 bytes are kept', async () => {
    const client = deliveryClient({ timeoutMs: 1000, allowPrivate: true });
    const result = await sendDelivery(client, `${url}/big`, {}, '{}', { allowPrivate: true });
    expect(result.outcome).toEqual({ kind: 'response', status: 200 });
    expect(result.responseBody).toBe('x'.repeat(MAX_RESPONSE_BODY_BYTES));
  });

  it('when private addresses are not allowed, then a literal loopback address is refused without a request', async () => {
    const before = seen.length;
    const client = deliveryClient({ timeoutMs: 1000, allowPrivate: false });
    const result = await sendDelivery(client, `${url}/hook`, {}, '{}', { allowPrivate: false });
    expect(result.outcome.kind).toBe('refused');
    expect(seen.length).toBe(before);
  });
});
