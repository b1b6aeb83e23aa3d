import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, createServer, request, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import express from 'express';
import { createLogger } from '@githost/logging';
import { upstreamProxy } from './proxy.js';

/** An upstream that starts its answer, then dies (a killed git-storage mid-clone). */
let upstream: Server;
let gateway: Server;

const listen = (s: Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));

beforeAll(async () => {
  upstream = createServer((req, res) => {
    if (req.url === '/dies-mid-answer') {
      res.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-result' });
      res.write('0008NAK\n');
      setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    res.end('whole');
  });
  const upstreamPort = await listen(upstream);
  const app = express();
  app.use(upstreamProxy('git-storage', { target: `http://127.0.0.1:${upstreamPort}`, agent: new Agent({ keepAlive: true }), logger: createLogger('test') }));
  gateway = createServer(app);
  await listen(gateway);
});

afterAll(async () => {
  await new Promise((r) => gateway.close(r));
  await new Promise((r) => upstream.close(r));
});

function fetchThrough(path: string, { method = 'GET', through = gateway }: { method?: string; through?: Server } = {}): Promise<{ status: number; body: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: (through.address() as AddressInfo).port, path, method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      // Either way the client learns the answer ended; a hang fails the test on jest's timeout.
      res.on('close', () => resolve({ status: res.statusCode ?? 0, body, complete: res.complete }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('upstreamProxy', () => {
  it('when the upstream answers in full, then the client gets it all', async () => {
    expect(await fetchThrough('/ok')).toEqual({ status: 200, body: 'whole', complete: true });
  });

  it('when the upstream dies after starting its answer, then the client connection is cut at once instead of hanging', async () => {
    expect(await fetchThrough('/dies-mid-answer')).toEqual({ status: 200, body: '0008NAK\n', complete: false });
  });
});

describe('a kept-alive connection the service closed', () => {
  /** Answers the first request on each connection (kept alive), and resets the connection when a
   *  second one arrives on it: a service that dropped a connection the gateway still pools. */
  let resetting: TcpServer;
  let proxied: Server;
  let connections = 0;

  beforeAll(async () => {
    resetting = createTcpServer((socket: Socket) => {
      connections++;
      let requests = 0;
      let seen = '';
      socket.on('data', (d: Buffer) => {
        seen += d.toString('latin1');
        while (seen.includes('\r\n\r\n')) {
          seen = seen.slice(seen.indexOf('\r\n\r\n') + 4);
          if (++requests === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nfresh');
          else socket.resetAndDestroy();
        }
      });
    });
    const port = await new Promise<number>((resolve) => resetting.listen(0, '127.0.0.1', () => resolve((resetting.address() as AddressInfo).port)));
    const app = express();
    app.use(upstreamProxy('browse', { target: `http://127.0.0.1:${port}`, agent: new Agent({ keepAlive: true }), logger: createLogger('test', 'silent') }));
    proxied = createServer(app);
    await listen(proxied);
  });

  afterAll(async () => {
    await new Promise((r) => proxied.close(r));
    await new Promise((r) => resetting.close(r));
  });

  const through = (method: string) => fetchThrough('/api/repos/a/b/branches', { method, through: proxied });

  it('when a read is written on a pooled connection the service resets, then it is sent again and answers, never 503', async () => {
    expect(await through('GET')).toMatchObject({ status: 200, body: 'fresh' });
    expect(await through('GET')).toMatchObject({ status: 200, body: 'fresh' });
    expect(connections).toBe(2);
  });

  it('when a write meets the same reset, then it is not sent twice: 503', async () => {
    expect(await through('GET')).toMatchObject({ status: 200, body: 'fresh' });
    expect(await through('DELETE')).toMatchObject({ status: 503, body: JSON.stringify({ error: 'Service unavailable' }) });
  });
});
