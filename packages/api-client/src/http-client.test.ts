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

describe('requestWhole with a fallback (the web calling its own gateway, docs/decisions/replicas.md#the-webs-own-gateway)', () => {
  const servers: http.Server[] = [];
  const listen = async (handler: http.RequestListener): Promise<string> => {
    const server = http.createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  // Nothing listens on port 1, and the system never hands it out for a listen on port 0: no test
  // running beside this one can take it, as it could a port bound and closed here.
  const refusing = 'http://127.0.0.1:1';
  let fallback: string;
  const received: string[] = [];

  beforeAll(async () => {
    fallback = await listen((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        received.push(`${req.method} ${req.url} ${body}`);
        res.end('fallback');
      });
    });
  });
  afterAll(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  it('when its own gateway refuses the connection, then a GET and a POST each go to the fallback once', async () => {
    received.length = 0;
    const own = refusing;
    const read = await requestWhole(`${own}/api/a`, { method: 'GET', headers: {}, timeoutMs: 5_000, fallbackUrl: `${fallback}/api/a` });
    const write = await requestWhole(`${own}/api/b`, { method: 'POST', headers: {}, body: '{"x":1}', timeoutMs: 5_000, fallbackUrl: `${fallback}/api/b` });
    expect([read.text, write.text]).toEqual(['fallback', 'fallback']);
    expect(received).toEqual(['GET /api/a ', 'POST /api/b {"x":1}']);
  });

  it('when its own gateway takes a request and closes the connection without answering, then a GET is answered by the fallback and a POST fails without ever reaching it', async () => {
    received.length = 0;
    const taken: string[] = [];
    const own = await listen((req) => {
      taken.push(`${req.method} ${req.url}`);
      req.socket.destroy();
    });
    const read = await requestWhole(`${own}/api/a`, { method: 'GET', headers: {}, timeoutMs: 5_000, fallbackUrl: `${fallback}/api/a` });
    const write = requestWhole(`${own}/api/b`, { method: 'POST', headers: {}, body: '{}', timeoutMs: 5_000, fallbackUrl: `${fallback}/api/b` });
    await expect(write).rejects.toThrow(/socket hang up/);
    expect(read.text).toBe('fallback');
    expect(taken).toEqual(['GET /api/a', 'POST /api/b']);
    expect(received).toEqual(['GET /api/a ']);
  });

  it('when a fallback is set, then writes go on a connection of their own and reads share the kept-alive pool', async () => {
    const sockets = new Map<string, Set<unknown>>();
    const own = await listen((req, res) => {
      const seen = sockets.get(req.method!) ?? new Set();
      seen.add(req.socket);
      sockets.set(req.method!, seen);
      req.resume().on('end', () => res.end('own'));
    });
    for (let i = 0; i < 3; i++) await requestWhole(`${own}/r`, { method: 'GET', headers: {}, timeoutMs: 5_000, fallbackUrl: `${fallback}/r` });
    for (let i = 0; i < 3; i++) await requestWhole(`${own}/w`, { method: 'POST', headers: {}, body: '{}', timeoutMs: 5_000, fallbackUrl: `${fallback}/w` });
    expect([sockets.get('GET')?.size, sockets.get('POST')?.size]).toEqual([1, 3]);
  });
});
