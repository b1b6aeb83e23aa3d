import { afterEach, describe, expect, it } from '@jest/globals';
import { Agent, createServer, request, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import express from 'express';
import { createLogger } from '@githost/logging';
import { createGatewayMetrics } from '../metrics.js';
import { upstreamProxy } from './proxy.js';

/** What a raw upstream does with the nth request it reads (1-based, counted over all its connections). */
type Behaviour = (n: number, socket: Socket) => void;

const answer = (socket: Socket, body = 'fresh') => socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`);

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

const listen = (s: Server | TcpServer) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
const close = (s: Server | TcpServer) => () => new Promise((r) => s.close(r));

/** An upstream speaking HTTP by hand, so it can fail at any point of an answer; it records each request's head. */
async function rawUpstream(behaviour: Behaviour) {
  const seen = { requests: [] as string[], connections: 0, forwardedFor: [] as (string | undefined)[] };
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    seen.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    socket.on('data', (d: Buffer) => {
      buffered += d.toString('latin1');
      // Bodies are not parsed: every request here either has none or meets a connection closed at its head.
      while (!socket.destroyed && buffered.includes('\r\n\r\n')) {
        const head = buffered.slice(0, buffered.indexOf('\r\n\r\n'));
        buffered = buffered.slice(head.length + 4);
        seen.requests.push(head.split('\r\n')[0]!);
        seen.forwardedFor.push(/^x-forwarded-for: (.*)$/im.exec(head)?.[1]);
        behaviour(seen.requests.length, socket);
      }
    });
  });
  const port = await listen(server);
  closing.push(() => {
    for (const socket of sockets) socket.destroy();
    return close(server)();
  });
  return { port, seen };
}

/** A gateway app in front of `port` with its own agent, logger and metrics. */
async function gatewayTo(port: number, timeoutMs?: number) {
  const metrics = createGatewayMetrics();
  const app = express();
  app.use(upstreamProxy('browse', { target: `http://127.0.0.1:${port}`, agent: new Agent({ keepAlive: true }), logger: createLogger('test', process.env.DBG ? 'info' : 'silent'), timeoutMs, onRetry: () => metrics.upstreamRetries.inc({ upstream: 'browse' }) }));
  const server = createServer(app);
  const gatewayPort = await listen(server);
  closing.push(close(server));
  const send = (method: string, path = '/api/repos/a/b/branches', body?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const headers = body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) };
      const req = request({ host: '127.0.0.1', port: gatewayPort, path, method, headers, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('close', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const retries = async () => (await metrics.upstreamRetries.get()).values.map(({ labels, value }) => [labels.upstream, value]);
  return { send, retries };
}

const UNAVAILABLE = { status: 503, body: JSON.stringify({ error: 'Service unavailable' }) };

describe('a read whose upstream connection fails before any answer (docs/decisions/replicas.md#a-replica-that-dies)', () => {
  it('when the service closes the connection on the first request unanswered, then the GET is sent once more on a new connection and answers', async () => {
    const upstream = await rawUpstream((n, socket) => (n === 1 ? socket.destroy() : answer(socket)));
    const gateway = await gatewayTo(upstream.port);
    expect(await gateway.send('GET')).toEqual({ status: 200, body: 'fresh' });
    expect(upstream.seen).toEqual({ requests: ['GET /api/repos/a/b/branches HTTP/1.1', 'GET /api/repos/a/b/branches HTTP/1.1'], connections: 2, forwardedFor: ['127.0.0.1', '127.0.0.1'] });
    expect(await gateway.retries()).toEqual([['browse', 1]]);
  });

  it('when the service resets the connection on the first request, then a HEAD is sent once more and answers', async () => {
    const upstream = await rawUpstream((n, socket) => (n === 1 ? socket.resetAndDestroy() : socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n')));
    const gateway = await gatewayTo(upstream.port);
    expect(await gateway.send('HEAD')).toEqual({ status: 200, body: '' });
    expect(upstream.seen.requests).toEqual(['HEAD /api/repos/a/b/branches HTTP/1.1', 'HEAD /api/repos/a/b/branches HTTP/1.1']);
    expect(await gateway.retries()).toEqual([['browse', 1]]);
  });

  it("when git's info/refs GET meets a closed connection, then it is sent once more too", async () => {
    const upstream = await rawUpstream((n, socket) => (n === 1 ? socket.destroy() : answer(socket, '001e# service=git-upload-pack\n')));
    const gateway = await gatewayTo(upstream.port);
    expect(await gateway.send('GET', '/a/b.git/info/refs?service=git-upload-pack')).toEqual({ status: 200, body: '001e# service=git-upload-pack\n' });
    expect(upstream.seen.requests).toHaveLength(2);
  });

  it('when the port refuses connections, then the GET is tried twice in all and the client gets 503', async () => {
    const refusing = createTcpServer();
    const port = await listen(refusing);
    await close(refusing)();
    const gateway = await gatewayTo(port);
    expect(await gateway.send('GET')).toEqual(UNAVAILABLE);
    expect(await gateway.retries()).toEqual([['browse', 1]]);
  });

  it('when every connection closes unanswered, then the GET is sent twice, never a third time: 503', async () => {
    const upstream = await rawUpstream((_n, socket) => socket.destroy());
    const gateway = await gatewayTo(upstream.port);
    expect(await gateway.send('GET')).toEqual(UNAVAILABLE);
    expect(upstream.seen.requests).toHaveLength(2);
    expect(await gateway.retries()).toEqual([['browse', 1]]);
  });
});

describe('what is never sent twice', () => {
  it('when the service dies after the first byte of its answer, then the GET is not sent again and the client gets 503 as before', async () => {
    const upstream = await rawUpstream((n, socket) => {
      if (n === 1) socket.end('H');
      else answer(socket);
    });
    const gateway = await gatewayTo(upstream.port);
    expect(await gateway.send('GET')).toEqual(UNAVAILABLE);
    expect(upstream.seen.requests).toHaveLength(1);
    expect(await gateway.retries()).toEqual([]);
  });

  it('when the service dies after its status line and headers, then the GET is not sent again and the client sees the answer cut', async () => {
    const upstream = await rawUpstream((n, socket) => {
      if (n === 1) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf');
      else answer(socket);
    });
    const gateway = await gatewayTo(upstream.port);
    expect(await gateway.send('GET')).toEqual({ status: 200, body: 'half' });
    expect(upstream.seen.requests).toHaveLength(1);
    expect(await gateway.retries()).toEqual([]);
  });

  it.each([
    ['an API POST', 'POST', '/api/repos/a/b/branches'],
    ['a clone\'s upload-pack POST', 'POST', '/a/b.git/git-upload-pack'],
    ['a DELETE', 'DELETE', '/api/repos/a/b/branches/x'],
  ])('when %s meets a connection closed unanswered, then it is not sent again: 503', async (_what, method, path) => {
    const upstream = await rawUpstream((n, socket) => (n === 1 ? socket.destroy() : answer(socket)));
    const gateway = await gatewayTo(upstream.port);
    expect(await gateway.send(method, path)).toEqual(UNAVAILABLE);
    expect(upstream.seen.requests).toEqual([`${method} ${path} HTTP/1.1`]);
    expect(await gateway.retries()).toEqual([]);
  });

  it('when a GET carrying a body meets a connection closed unanswered, then it is not sent again (its body is gone): 503', async () => {
    const upstream = await rawUpstream((n, socket) => (n === 1 ? socket.destroy() : answer(socket)));
    const gateway = await gatewayTo(upstream.port);
    expect(await gateway.send('GET', '/api/repos/a/b/branches', 'abc')).toEqual(UNAVAILABLE);
    expect(upstream.seen.requests).toHaveLength(1);
  });

  it("when the gateway's own inactivity timeout gives up on a GET, then it is not sent again: 503", async () => {
    const upstream = await rawUpstream(() => undefined); // reads the request, never answers
    const gateway = await gatewayTo(upstream.port, 1_000);
    expect(await gateway.send('GET')).toEqual(UNAVAILABLE);
    expect(upstream.seen.requests).toHaveLength(1);
    expect(await gateway.retries()).toEqual([]);
  });
});
