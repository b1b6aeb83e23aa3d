import { afterEach, describe, expect, it } from '@jest/globals';
import { Agent, createServer, request, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import express from 'express';
import { createLogger } from '@githost/logging';
import { PartnerCheck } from '@githost/api-client/partner-check';
import { upstreamProxy } from './proxy.js';

/**
 * The web paired with its gateway (docs/decisions/replicas.md#the-web-paired-with-its-gateway):
 * `fallbackTarget` takes a request its own target did not take, by the rule of a replica that
 * dies: refused for any method (with its body), cut before any answer for a GET only.
 */
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

const listen = (s: Server | TcpServer) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
const close = (s: Server | TcpServer) => () => new Promise((r) => s.close(r));

/**
 * Ports nothing listens on. Below 1024: the system never hands them out for a listen on port 0, so
 * no test running beside this one can take them in between, as it could a port bound and closed
 * here (CI once got a 431 from whatever had taken such a port). Port 1 is what the other tests use.
 */
const REFUSING = 1;
const ALSO_REFUSING = 2;

/** An HTTP upstream that answers `<name> <method> <body>` and records what it received. */
async function upstream(name: string) {
  const received: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push(`${req.method} ${req.url} ${body}`);
      res.end(`${name} ${req.method} ${body}`);
    });
  });
  const port = await listen(server);
  closing.push(close(server));
  return { port, received };
}

/** An upstream that reads each request's head and closes the connection unanswered. */
async function dropping() {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (d: Buffer) => {
      received.push(d.toString('latin1').split('\r\n')[0]!);
      socket.destroy();
    });
  });
  const port = await listen(server);
  closing.push(() => {
    for (const s of sockets) s.destroy();
    return close(server)();
  });
  return { port, received };
}

/** An upstream that takes connections and, while `hang` is set, never answers (a stopped process:
 *  its kernel still accepts); otherwise answers `<name> <method> <body>`. */
async function hanging(name: string) {
  const state = { hang: false, received: [] as string[], held: [] as import('node:http').ServerResponse[] };
  const server = createServer((req, res) => {
    if (state.hang) {
      state.held.push(res);
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (req.url !== '/readyz') state.received.push(`${req.method} ${req.url} ${body}`);
      res.end(`${name} ${req.method} ${body}`);
    });
  });
  const port = await listen(server);
  closing.push(() => {
    state.held.forEach((res) => res.destroy());
    server.closeAllConnections();
    return close(server)();
  });
  return { port, state };
}

async function gatewayTo(port: number, fallbackPort: number, partner?: PartnerCheck) {
  let retries = 0;
  const app = express();
  app.use(upstreamProxy('web', { target: `http://127.0.0.1:${port}`, fallbackTarget: `http://127.0.0.1:${fallbackPort}`, partner, agent: new Agent({ keepAlive: true }), logger: createLogger('test', 'silent'), onRetry: () => retries++ }));
  const server = createServer(app);
  const gatewayPort = await listen(server);
  closing.push(close(server));
  const send = (method: string, body?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const headers = body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) };
      const req = request({ host: '127.0.0.1', port: gatewayPort, path: '/alice/demo', method, headers, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  return { send, retries: () => retries };
}

describe('forwarding with a fallback target', () => {
  it('when its own target answers, then every method goes there and the fallback gets nothing', async () => {
    const [own, fallback] = [await upstream('own'), await upstream('fallback')];
    const gateway = await gatewayTo(own.port, fallback.port);
    expect(await gateway.send('GET')).toEqual({ status: 200, body: 'own GET ' });
    expect(await gateway.send('POST', 'a=1')).toEqual({ status: 200, body: 'own POST a=1' });
    expect(fallback.received).toEqual([]);
    expect(gateway.retries()).toBe(0);
  });

  it('when its own target refuses the connection, then a GET and a POST with its whole body go to the fallback, each once', async () => {
    const fallback = await upstream('fallback');
    const gateway = await gatewayTo(REFUSING, fallback.port);
    expect(await gateway.send('GET')).toEqual({ status: 200, body: 'fallback GET ' });
    // Bigger than the socket's buffers: part of it is still in the request when the refusal comes.
    const form = `title=${'x'.repeat(70_000)}&_csrf=token`;
    expect(await gateway.send('POST', form)).toEqual({ status: 200, body: `fallback POST ${form}` });
    expect(await gateway.send('DELETE')).toEqual({ status: 200, body: 'fallback DELETE ' });
    expect(fallback.received).toEqual(['GET /alice/demo ', `POST /alice/demo ${form}`, 'DELETE /alice/demo ']);
    expect(gateway.retries()).toBe(3);
  });

  it('when its own target takes the request and closes unanswered, then a GET goes to the fallback and a POST is a 503, never sent twice', async () => {
    const [own, fallback] = [await dropping(), await upstream('fallback')];
    const gateway = await gatewayTo(own.port, fallback.port);
    expect(await gateway.send('GET')).toEqual({ status: 200, body: 'fallback GET ' });
    expect((await gateway.send('POST', 'a=1')).status).toBe(503);
    expect(own.received).toEqual(['GET /alice/demo HTTP/1.1', 'POST /alice/demo HTTP/1.1']);
    expect(fallback.received).toEqual(['GET /alice/demo ']);
  });

  it('when the fallback refuses too, then the request is a 503 after one try at each', async () => {
    const gateway = await gatewayTo(REFUSING, ALSO_REFUSING);
    expect((await gateway.send('GET')).status).toBe(503);
    expect((await gateway.send('POST', 'a=1')).status).toBe(503);
    expect(gateway.retries()).toBe(2);
  });
});

describe('forwarding with a fallback target and a health check of its own target (docs/decisions/replicas.md#a-partner-that-hangs)', () => {
  const until = async (cond: () => boolean) => {
    const start = Date.now();
    // A bound, not a timing: two failed checks take about 2-3 s.
    while (!cond()) {
      if (Date.now() - start > 10_000) throw new Error('not within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('when its own target hangs, then a GET waiting on it is cut when the check marks it down and answered by the fallback; new requests, a POST too, go straight there; once it answers again it gets them back', async () => {
    const [own, fallback] = [await hanging('own'), await upstream('fallback')];
    const check = new PartnerCheck({ url: `http://127.0.0.1:${own.port}`, name: 'web' }).start();
    closing.push(async () => check.stop());
    const gateway = await gatewayTo(own.port, fallback.port, check);
    expect(await gateway.send('GET')).toEqual({ status: 200, body: 'own GET ' });
    own.state.hang = true;
    expect(await gateway.send('GET')).toEqual({ status: 200, body: 'fallback GET ' });
    expect(check.up).toBe(false);
    expect(gateway.retries()).toBe(1);
    expect(await gateway.send('POST', 'a=1')).toEqual({ status: 200, body: 'fallback POST a=1' });
    expect(fallback.received).toEqual(['GET /alice/demo ', 'POST /alice/demo a=1']);
    own.state.hang = false;
    await until(() => check.up);
    expect(await gateway.send('GET')).toEqual({ status: 200, body: 'own GET ' });
    expect(own.state.received).toEqual(['GET /alice/demo ', 'GET /alice/demo ']);
  }, 30_000);

  it('when a POST is waiting on its own target as it is marked down, then it is not cut nor sent to the fallback', async () => {
    const [own, fallback] = [await hanging('own'), await upstream('fallback')];
    const check = new PartnerCheck({ url: `http://127.0.0.1:${own.port}`, name: 'web' }).start();
    closing.push(async () => check.stop());
    const gateway = await gatewayTo(own.port, fallback.port, check);
    own.state.hang = true;
    const post = gateway.send('POST', 'a=1');
    await until(() => !check.up);
    // Still waiting on the hung target (answered at the forwarding's timeout, 120 s in the gateway).
    const settled = await Promise.race([post.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 1_500))]);
    expect(settled).toBe('waiting');
    expect(fallback.received).toEqual([]);
    expect(own.state.held.some((res) => res.req.method === 'POST')).toBe(true);
    own.state.held.forEach((res) => res.destroy());
    await post.catch(() => undefined);
  }, 30_000);
});
