import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestWhole } from './http-client.js';

describe('requestWhole', () => {
  let server: http.Server;
  let url: string;
  const seen: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        seen.push(`${req.method} ${body}`);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ got: body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  it('when a DELETE carries a body, then it arrives whole and the kept-alive connection serves the next request', async () => {
    const body = JSON.stringify({ reviewers: ['rita'] });
    const first = await requestWhole(url, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body, timeoutMs: 5_000 });
    const second = await requestWhole(url, { method: 'GET', headers: {}, timeoutMs: 5_000 });
    expect([first.status, JSON.parse(first.text), second.status]).toEqual([200, { got: body }, 200]);
    expect(seen).toEqual([`DELETE ${body}`, 'GET ']);
  });
});
