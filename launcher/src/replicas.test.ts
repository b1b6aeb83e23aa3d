import { describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect as connectTcp, createServer as createTcpServer, type AddressInfo } from 'node:net';
import { express, listen } from '@githost/http';
import { createLogger } from '@githost/logging';
import { freePort, readHaproxyStats } from '@githost/test-support';
import { CHECK_TIMEOUT, CLIENT_KEEP_ALIVE_S, haproxyConfig, REPLICA_SHUTDOWN_DELAY_MS, replicaCount, requireProcessesForReplicas, startHaproxy, waitUntilReady } from './replicas.js';

/** The content type and body of the last answer to each `<method> <path>` sent. */
const answerBodies = new Map<string, string>();

/** One request on a connection of its own (haproxy closes the client's after an error of its own); its status. */
function send(port: number, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.once('end', () => {
        answerBodies.set(`${method} ${path}`, `${res.headers['content-type']} ${body}`);
        resolve(res.statusCode ?? 0);
      });
    });
    req.once('error', reject);
    req.end(method === 'POST' ? 'x' : undefined);
  });
}

/** A loopback HTTP server on a free port. */
function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer(handler).listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port }));
  });
}


/** A request over `agent` (kept-alive connections, as the gateway and the web send); status and body. */
function sendOn(agent: Agent, port: number, method: string, path: string): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.once('end', () => resolve([res.statusCode ?? 0, body]));
    });
    req.once('error', reject);
    req.end(method === 'POST' ? path : undefined);
  });
}

/** A replica as every service serves (packages/http's listen and graceful close), ready until
 *  `stopping`; it records each request but /readyz and counts the connections those came on. With
 *  `closing`, a request that comes on a connection which already carried one is dropped unanswered,
 *  once per path: as if the replica had closed that idle connection just as haproxy wrote on it. */
async function replica(name: string) {
  const state = { stopping: false, closing: false, seen: [] as string[], dropped: [] as string[], sockets: new Set<unknown>() };
  const served = new WeakMap<object, number>();
  const app = express();
  // As packages/http's: not ready while stopping, 404 when the check asks (haproxy's drain convention).
  app.get('/readyz', (req, res) => void res.status(state.stopping ? (req.query.not_ready === '404' ? 404 : 503) : 200).send(state.stopping ? 'stopping' : 'ready'));
  app.use((req, _res, next) => {
    const request = `${req.method} ${req.url}`;
    if (state.closing && (served.get(req.socket) ?? 0) > 0 && !state.dropped.includes(request)) {
      state.dropped.push(request);
      return void req.socket.destroy();
    }
    served.set(req.socket, (served.get(req.socket) ?? 0) + 1);
    state.seen.push(request);
    state.sockets.add(req.socket);
    next();
  });
  app.get('/slow', (_req, res) => void setTimeout(() => res.send(name), 1500));
  app.all(/^\/fast/, (_req, res) => void res.send(name));
  return { name, state, listening: await listen(app, 0, '127.0.0.1') };
}

/** A replica in a process of its own, so that it can be stopped with SIGSTOP as a hung one is: it
 *  answers `/readyz` after `readyzDelayMs`, `/hold` after 4 s and anything else at once, each with
 *  its name. */
async function replicaProcess(name: string, readyzDelayMs: number): Promise<{ child: ChildProcess; port: number }> {
  const script = `
    const delay = ${readyzDelayMs};
    require('node:http').createServer((req, res) => {
      if (req.url.startsWith('/readyz')) return void setTimeout(() => res.end('ready'), delay);
      if (req.url.startsWith('/hold')) return void setTimeout(() => res.end(${JSON.stringify(name)}), 4000);
      res.end(${JSON.stringify(name)});
    }).listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`replica ${name} exited (${code})`)));
  });
  return { child, port };
}

/** haproxy's stats row of `<section>/<server>`. */
async function statsRow(statsPort: number, key: string): Promise<Record<string, string>> {
  return (await readHaproxyStats(`http://127.0.0.1:${statsPort}/`)).get(key)!;
}

describe('launcher replicas', () => {
  it('when nothing is asked, then one of each; the option wins over GITHOST_REPLICAS', () => {
    expect([replicaCount(undefined, undefined), replicaCount(undefined, ''), replicaCount(undefined, ' 3 '), replicaCount(2, '5')]).toEqual([1, 1, 3, 2]);
  });

  it.each([['0'], ['9'], ['two'], ['1.5']])('when GITHOST_REPLICAS is %j, then start-up fails naming it', (value) => {
    expect(() => replicaCount(undefined, value)).toThrow(/GITHOST_REPLICAS \(replicas\) must be a whole number from 1 to 8/);
  });

  it('when replicas are asked without a process per service, then start-up fails saying what is needed; so without Postgres', () => {
    expect(() => requireProcessesForReplicas(2, false, 'postgres://db')).toThrow(/GITHOST_REPLICAS above 1 needs GITHOST_PROCESS_PER_SERVICE=true/);
    expect(() => requireProcessesForReplicas(2, true, undefined)).toThrow(/GITHOST_REPLICAS above 1 needs DATABASE_URL/);
    expect(() => requireProcessesForReplicas(1, false, undefined)).not.toThrow();
    expect(() => requireProcessesForReplicas(2, true, 'postgres://db')).not.toThrow();
  });

  it('when two gateways and two browse replicas run, then each section balances them round robin, checked on /readyz, keeping connections alive', () => {
    const cfg = haproxyConfig([
      { name: 'gateway', port: 3000, bind: '0.0.0.0', servers: [4001, 4002] },
      { name: 'browse', port: 5000, servers: [6001, 6002] },
    ]);
    expect(cfg).toContain(['listen gateway', '  bind 0.0.0.0:3000', '  balance roundrobin', '  option httpchk GET /readyz?not_ready=404', '  http-check disable-on-404', '  http-check expect status 200',
      '  http-reuse always', '  retry-on conn-failure empty-response', '  use_backend gateway-writes unless METH_GET',
      `  http-error status 502 content-type application/json string '{"error":"Service unavailable: the server failed before answering"}'`,
      `  http-error status 503 content-type application/json string '{"error":"Service unavailable: no server is up"}'`,
      `  http-error status 504 content-type application/json string '{"error":"Service unavailable: the server did not answer in time"}'`,
      '  http-after-response set-status 503 if { status 502 } || { status 504 }', '  server gateway-1 127.0.0.1:4001 check inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions', '  server gateway-2 127.0.0.1:4002 check inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions', 'listen browse', '  bind 127.0.0.1:5000'].join('\n'));
    expect(cfg).toContain('  server browse-2 127.0.0.1:6002 check inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions\n');
    // A check has 2 s to answer, not `inter` (500 ms): a slow server is not a hung one.
    expect(CHECK_TIMEOUT).toBe('2s');
    expect(cfg).toContain('  timeout check 2s\n');
    expect(cfg).toMatch(/option redispatch 1\n/);
    expect(cfg).toMatch(/option http-keep-alive\n/);
    expect(cfg).toContain(`  timeout http-keep-alive ${CLIENT_KEEP_ALIVE_S}s\n`);
    expect(cfg).not.toContain('http-server-close\nlisten');
  });

  it('when a request is not a GET or HEAD, then it goes to the section\'s writes backend: the same servers, tracked, a new connection each, never an L7 retry', () => {
    const cfg = haproxyConfig([{ name: 'browse', port: 5000, servers: [6001, 6002] }]);
    expect(cfg).toContain(['  http-reuse always', '  retry-on conn-failure empty-response', '  use_backend browse-writes unless METH_GET'].join('\n'));
    expect(cfg).toContain(['backend browse-writes', '  balance roundrobin', '  http-check disable-on-404', '  option http-server-close', '  http-reuse never', '  retry-on conn-failure',
      '  server browse-1 127.0.0.1:6001 track browse/browse-1 on-marked-down shutdown-sessions', '  server browse-2 127.0.0.1:6002 track browse/browse-2 on-marked-down shutdown-sessions'].join('\n'));
  });

  it('when a replica hangs with requests in flight (it holds them and stops answering its checks), then through the real haproxy the GET in flight is answered by the other and the POST 503 with a JSON error, both long before timeout server', async () => {
    // Held requests of the hanging replica: it never answers one, as a stopped (SIGSTOP) process.
    const held: ServerResponse[] = [];
    const state = { hung: false, received: [] as string[] };
    const hanging = await serve((req, res) => {
      if (req.url?.startsWith('/readyz') && !state.hung) return void res.end('ok');
      if (!req.url?.startsWith('/readyz')) state.received.push(`${req.method} ${req.url}`);
      held.push(res);
    });
    const answered: string[] = [];
    const answering = await serve((req, res) => {
      if (!req.url?.startsWith('/readyz')) answered.push(`${req.method} ${req.url}`);
      req.resume();
      req.once('end', () => res.end('ok'));
    });
    const front = await freePort();
    const haproxy = await startHaproxy(haproxyConfig([{ name: 'gateway', port: front, servers: [hanging.port, answering.port] }]), front, createLogger('test'));
    // Far below haproxy's `timeout server` (5 min): the bound is the checks' (about 1 s), with a margin for a loaded machine.
    const bound = new Promise<'bound passed'>((resolve) => setTimeout(() => resolve('bound passed'), 20_000).unref());
    try {
      // Round robin: one GET and one POST reach each replica.
      const answers = [send(front, 'GET', '/read/1'), send(front, 'GET', '/read/2'), send(front, 'POST', '/write/1'), send(front, 'POST', '/write/2')];
      for (let i = 0; state.received.length < 2 && i < 200; i++) await new Promise((r) => setTimeout(r, 50));
      expect(state.received.map((r) => r.split(' ')[0]).sort()).toEqual(['GET', 'POST']);
      state.hung = true;
      const statuses = await Promise.race([Promise.all(answers), bound]);
      const postToHung = state.received.find((r) => r.startsWith('POST '))!.split(' ')[1];
      const order = ['/read/1', '/read/2', '/write/1', '/write/2'];
      // Both GETs 200 (the one held was sent to the other replica); the POST held 503, never sent again; the other 200.
      expect(statuses).toEqual(order.map((p) => (p === postToHung ? 503 : 200)));
      // haproxy's own answer is a githost error: JSON, not its HTML page.
      expect(answerBodies.get(`POST ${postToHung}`)).toBe('application/json {"error":"Service unavailable: the server failed before answering"}');
      expect(answered.sort()).toEqual(['GET /read/1', 'GET /read/2', ...order.filter((p) => p.startsWith('/write') && p !== postToHung).map((p) => `POST ${p}`)].sort());
    } finally {
      held.forEach((res) => res.destroy());
      await haproxy.stop();
      hanging.server.close();
      answering.server.close();
    }
  }, 60_000);

  it('when a replica answers its checks slower than inter but within timeout check, then through the real haproxy it stays up and keeps its requests; stopped with SIGSTOP, it is taken out within the bound and a GET it held is answered by the other', async () => {
    // 1 s a check: twice `inter`, half of timeout check. Without timeout check each check would
    // time out at 500 ms, the replica would be marked down and its held request cut.
    const slow = await replicaProcess('slow', 1000);
    const quick = await replicaProcess('quick', 0);
    const [front, statsPort] = [await freePort(), await freePort()];
    const haproxy = await startHaproxy(haproxyConfig([{ name: 'browse', port: front, servers: [slow.port, quick.port] }], statsPort), front, createLogger('test'));
    try {
      // Round robin: one held request on each replica, over several of the slow replica's checks.
      const held = await Promise.all([send(front, 'GET', '/hold/1'), send(front, 'GET', '/hold/2')]);
      expect(held).toEqual([200, 200]);
      const answeredBy = [answerBodies.get('GET /hold/1'), answerBodies.get('GET /hold/2')].map((b) => b?.split(' ')[1]).sort();
      // Each answered by the replica it was sent to: none was cut and sent again.
      expect(answeredBy).toEqual(['quick', 'slow']);
      const row = await statsRow(statsPort, 'browse/browse-1');
      expect(row.status).toBe('UP');
      expect(row.chkdown).toBe('0');
      // Its checks did take longer than inter (haproxy's own measure of the last one).
      expect(Number(row.check_duration)).toBeGreaterThanOrEqual(900);

      // Hung: the kernel still accepts its connections, nothing answers them.
      process.kill(slow.child.pid!, 'SIGSTOP');
      const stoppedAt = Date.now();
      const inFlight = [send(front, 'GET', '/after/1'), send(front, 'GET', '/after/2')];
      let windowMs = -1;
      for (let i = 0; i < 400 && windowMs < 0; i++) {
        if ((await statsRow(statsPort, 'browse/browse-1')).status?.startsWith('DOWN')) windowMs = Date.now() - stoppedAt;
        else await new Promise((r) => setTimeout(r, 50));
      }
      process.stdout.write(`a stopped replica marked down after ${windowMs} ms (bound: 2 x (inter + timeout check) = 5 s)\n`);
      // The written bound is 5 s; three times that for a loaded machine, far below what a check
      // timeout that had grown (or `timeout server`, 5 min) would give.
      expect(windowMs).toBeGreaterThan(0);
      expect(windowMs).toBeLessThan(15_000);
      // The GET it held was cut when it was marked down and answered by the other.
      expect(await Promise.all(inFlight)).toEqual([200, 200]);
      expect([answerBodies.get('GET /after/1'), answerBodies.get('GET /after/2')].map((b) => b?.split(' ')[1])).toEqual(['quick', 'quick']);
    } finally {
      slow.child.kill('SIGCONT');
      slow.child.kill('SIGKILL');
      quick.child.kill('SIGKILL');
      await haproxy.stop();
    }
  }, 60_000);

  it('when one replica drops the connection without answering, then through the real haproxy every GET is answered by the other and each POST is sent once, never again', async () => {
    // One replica that is ready but dies on every request (as one killed mid-request), one that answers.
    const seen = { dying: [] as string[], answering: [] as string[] };
    const dying = await serve((req, res) => {
      if (req.url?.startsWith('/readyz')) return void res.end('ok');
      seen.dying.push(`${req.method} ${req.url}`);
      req.socket.destroy();
    });
    const answering = await serve((req, res) => {
      if (!req.url?.startsWith('/readyz')) seen.answering.push(`${req.method} ${req.url}`);
      res.end('ok');
    });
    const front = await freePort();
    const haproxy = await startHaproxy(haproxyConfig([{ name: 'browse', port: front, servers: [dying.port, answering.port] }]), front, createLogger('test'));
    try {
      const statuses: { GET: number[]; POST: number[] } = { GET: [], POST: [] };
      // Two of each in a row, so each method meets both replicas in round robin.
      for (let i = 0; i < 6; i += 2) {
        for (const method of ['GET', 'POST'] as const) {
          for (const n of [i, i + 1]) statuses[method].push(await send(front, method, `/${method}/${n}`));
        }
      }
      expect(statuses.GET).toEqual(Array(6).fill(200));
      // A GET reached the dying replica at least once, so it was tried again on the other.
      const gets = (list: string[]) => list.filter((r) => r.startsWith('GET '));
      expect(gets(seen.dying).length).toBeGreaterThan(0);
      expect(seen.dying.filter((r) => r.startsWith('POST ')).length).toBeGreaterThan(0);
      expect(gets(seen.answering).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `GET /GET/${i}`).sort());
      // A POST is never sent twice: the dying replica's are answered 503 (haproxy's 502, as githost answers a server fault), the others 200.
      const posts = [...seen.dying, ...seen.answering].filter((r) => r.startsWith('POST '));
      expect(posts.sort()).toEqual(Array.from({ length: 6 }, (_, i) => `POST /POST/${i}`).sort());
      expect(statuses.POST.filter((s) => s === 503)).toHaveLength(seen.dying.filter((r) => r.startsWith('POST ')).length);
      expect(statuses.POST.filter((s) => s !== 503).every((s) => s === 200)).toBe(true);
    } finally {
      await haproxy.stop();
      dying.server.close();
      answering.server.close();
    }
  }, 30_000);

  it('when a replica stops as on SIGTERM (its listener closes, requests in flight finish), then through the real haproxy nothing in flight or after is lost, POSTs included', async () => {
    // Two replicas as every service serves (packages/http's listen and its graceful close).
    const replica = async (name: string) => {
      const app = express();
      app.get('/readyz', (_req, res) => void res.send('ready'));
      app.get('/slow', (_req, res) => void setTimeout(() => res.send(name), 1500));
      app.all('/fast', (_req, res) => void res.send(name));
      return listen(app, 0, '127.0.0.1');
    };
    const [first, second] = [await replica('first'), await replica('second')];
    const front = await freePort();
    const haproxy = await startHaproxy(haproxyConfig([{ name: 'browse', port: front, servers: [first.port, second.port] }]), front, createLogger('test'));
    try {
      // One slow request on each replica, then the first stops while they run.
      const slow = [send(front, 'GET', '/slow'), send(front, 'GET', '/slow')];
      await new Promise((r) => setTimeout(r, 300));
      const stopped = first.close();
      const after: number[] = [];
      for (let i = 0; i < 10; i++) after.push(await send(front, i % 2 === 0 ? 'GET' : 'POST', '/fast'));
      expect(await Promise.all(slow)).toEqual([200, 200]);
      await stopped;
      // A connection the stopped replica refused was never sent: haproxy sends it to the other, whatever its method.
      expect(after).toEqual(Array(10).fill(200));
    } finally {
      await haproxy.stop();
      await second.close();
    }
  }, 30_000);

  it('when GETs and POSTs come over kept-alive connections, then haproxy reuses connections to the replicas for GETs only, and loses nothing when a reused connection closes as haproxy writes on it', async () => {
    const replicas = [await replica('first'), await replica('second')];
    const front = await freePort();
    const haproxy = await startHaproxy(haproxyConfig([{ name: 'browse', port: front, servers: replicas.map((r) => r.listening.port) }]), front, createLogger('test'));
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const seen = () => replicas.flatMap((r) => r.state.seen);
    const sockets = () => replicas.reduce((n, r) => n + r.state.sockets.size, 0);
    try {
      const gets = await Promise.all(Array.from({ length: 40 }, (_, i) => sendOn(agent, front, 'GET', `/fast/get-${i}`)));
      expect(gets.every(([status]) => status === 200)).toBe(true);
      // 40 GETs on at most a few connections per replica (4 at once from the client).
      expect(sockets()).toBeLessThanOrEqual(8);
      const before = sockets();
      for (let i = 0; i < 6; i++) expect((await sendOn(agent, front, 'POST', `/fast/post-${i}`))[0]).toBe(200);
      // Each POST on a connection of its own.
      expect(sockets() - before).toBe(6);
      // Now every request haproxy writes on a reused connection meets it closing (once per path):
      // a GET is sent again on another connection, a POST never went on a reused one.
      for (const r of replicas) r.state.closing = true;
      const statuses: number[] = [];
      for (let round = 0; round < 30; round++) {
        const batch = await Promise.all(['GET', 'POST', 'GET', 'GET'].map((method, k) => sendOn(agent, front, method, `/fast/race-${round}-${k}`)));
        statuses.push(...batch.map(([status]) => status));
      }
      expect(statuses).toEqual(Array(120).fill(200));
      const dropped = replicas.flatMap((r) => r.state.dropped);
      expect(dropped.filter((r) => r.startsWith('GET /fast/race-')).length).toBeGreaterThan(10);
      expect(dropped.filter((r) => r.startsWith('POST '))).toEqual([]);
      const posts = seen().filter((r) => r.startsWith('POST /fast/race-'));
      expect(posts.sort()).toEqual(Array.from({ length: 30 }, (_, round) => `POST /fast/race-${round}-1`).sort());
    } finally {
      agent.destroy();
      await haproxy.stop();
      await Promise.all(replicas.map((r) => r.listening.close(100)));
    }
  }, 30_000);

  it('when a replica drains as a stopping process does (not ready, serving for the delay, then closing), then over kept-alive connections nothing in flight or after is lost, POSTs included', async () => {
    const [first, second] = [await replica('first'), await replica('second')];
    const front = await freePort();
    const haproxy = await startHaproxy(haproxyConfig([{ name: 'browse', port: front, servers: [first.listening.port, second.listening.port] }]), front, createLogger('test'));
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    try {
      // Both replicas UP and holding kept-alive connections before the first stops.
      await new Promise((r) => setTimeout(r, 1200));
      for (let i = 0; i < 8; i++) await sendOn(agent, front, 'GET', `/fast/warm-${i}`);
      const slow = [sendOn(agent, front, 'GET', '/slow'), sendOn(agent, front, 'GET', '/slow')];
      await new Promise((r) => setTimeout(r, 300));
      // launcher/src/child.ts on SIGTERM: not ready at once, the listener closed after the delay.
      first.state.stopping = true;
      const stopped = new Promise((r) => setTimeout(r, REPLICA_SHUTDOWN_DELAY_MS)).then(() => first.listening.close());
      let done = false;
      void stopped.then(() => (done = true));
      const statuses: number[] = [];
      let n = 0;
      while (!done || n < 60) {
        const batch = await Promise.all(['GET', 'POST'].map((method) => sendOn(agent, front, method, `/fast/during-${n++}`)));
        statuses.push(...batch.map(([status]) => status));
      }
      expect((await Promise.all(slow)).map(([status]) => status)).toEqual([200, 200]);
      await stopped;
      expect(statuses).toEqual(Array(statuses.length).fill(200));
      const posts = [...first.state.seen, ...second.state.seen].filter((r) => r.startsWith('POST /fast/during-'));
      expect(posts).toHaveLength(statuses.length / 2);
      expect(new Set(posts).size).toBe(posts.length);
    } finally {
      agent.destroy();
      await haproxy.stop();
      await second.listening.close(100);
    }
  }, 30_000);

  it('when accounts runs as replicas, then its gRPC goes through a TCP section whose servers follow the HTTP section\'s checks of the same processes, not checked a second time', () => {
    const cfg = haproxyConfig([
      { name: 'accounts', port: 7000, servers: [7201, 7202] },
      { name: 'accounts-grpc', port: 7001, mode: 'tcp', servers: [7101, 7102], tracks: 'accounts' },
    ]);
    expect(cfg).toContain(['listen accounts-grpc', '  bind 127.0.0.1:7001', '  balance roundrobin', '  option httpchk GET /readyz?not_ready=404', '  http-check disable-on-404', '  http-check expect status 200', '  mode tcp'].join('\n'));
    expect(cfg).toContain('  server accounts-grpc-1 127.0.0.1:7101 track accounts/accounts-1 on-marked-down shutdown-sessions\n  server accounts-grpc-2 127.0.0.1:7102 track accounts/accounts-2 on-marked-down shutdown-sessions\n');
    // One check of each process: its HTTP server's.
    expect(cfg.match(/ check inter /g)).toHaveLength(2);
    expect(cfg).toContain('  server accounts-1 127.0.0.1:7201 check inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions\n');
    // HTTP retries and connection reuse mean nothing to a byte stream.
    const grpcSection = /listen accounts-grpc\n( {2}.*\n)*/.exec(cfg)![0];
    expect(grpcSection).not.toContain('retry-on');
    expect(grpcSection).not.toContain('http-reuse');
  });

  it('when a replica\'s HTTP /readyz stops answering, then through the real haproxy its gRPC (TCP) server gets no new connection either', async () => {
    const hung = { one: false };
    const http1 = await serve((req, res) => void (hung.one ? req.socket.destroy() : res.end('ok')));
    const http2 = await serve((_req, res) => void res.end('ok'));
    const grpcServer = (name: string) =>
      new Promise<{ server: ReturnType<typeof createTcpServer>; port: number }>((resolve) => {
        // haproxy may reset a connection it passed on (its own check of nothing here, its stop).
        const server = createTcpServer((socket) => void socket.on('error', () => undefined).end(name)).listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port }));
      });
    const grpc1 = await grpcServer('grpc-1');
    const grpc2 = await grpcServer('grpc-2');
    const [front, grpcFront] = [await freePort(), await freePort()];
    const cfg = haproxyConfig([
      { name: 'accounts', port: front, servers: [http1.port, http2.port] },
      { name: 'accounts-grpc', port: grpcFront, mode: 'tcp', servers: [grpc1.port, grpc2.port], tracks: 'accounts' },
    ]);
    const haproxy = await startHaproxy(cfg, grpcFront, createLogger('test'));
    // Which gRPC server each of `n` new connections through the TCP section reached.
    const reached = async (n: number) => {
      const names: string[] = [];
      for (let i = 0; i < n; i++) {
        names.push(await new Promise<string>((resolve, reject) => {
          let data = '';
          const socket = connectTcp(grpcFront, '127.0.0.1');
          socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
          socket.once('end', () => resolve(data));
          socket.once('error', reject);
        }));

      }
      return names;
    };
    try {
      expect(new Set(await reached(4))).toEqual(new Set(['grpc-1', 'grpc-2']));
      hung.one = true;
      // Until the checks take it out (about a second), then every connection goes to the other.
      let last: string[] = [];
      for (let i = 0; i < 100 && !(last.length && last.every((n) => n === 'grpc-2')); i++) {
        await new Promise((r) => setTimeout(r, 200));
        last = await reached(4);
      }
      expect(last).toEqual(['grpc-2', 'grpc-2', 'grpc-2', 'grpc-2']);
    } finally {
      await haproxy.stop();
      for (const s of [http1.server, http2.server, grpc1.server, grpc2.server]) s.close();
    }
  }, 60_000);
});

describe('waitUntilReady', () => {
  it('when a gateway answers 503 on /readyz at first, then the start waits until it answers 200, and reports one never ready after the timeout', async () => {
    let asked = 0;
    const late = await serve((req, res) => void res.writeHead(req.url?.startsWith('/readyz') && ++asked > 3 ? 200 : 503).end());
    const never = await serve((_req, res) => void res.writeHead(503).end());
    try {
      expect(await waitUntilReady([`http://127.0.0.1:${late.port}`], 10_000)).toEqual([]);
      expect(asked).toBe(4);
      expect(await waitUntilReady([`http://127.0.0.1:${late.port}`, `http://127.0.0.1:${never.port}`], 300)).toEqual([`http://127.0.0.1:${never.port}`]);
    } finally {
      late.server.close();
      never.server.close();
    }
  });
});
