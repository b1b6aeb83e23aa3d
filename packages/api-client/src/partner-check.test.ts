import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestWhole } from './http-client.js';
import { ownGateway, PartnerCheck } from './partner-check.js';
import { streamedRead } from './streamed-read.js';

/** A partner that answers, or hangs like a stopped process: it takes every connection (as the
 *  kernel does for a SIGSTOPped one) and never answers. */
interface Partner {
  url: string;
  hang: boolean;
  /** Health checks answered. */
  checksAnswered: number;
  received: string[];
  held: http.ServerResponse[];
  server: http.Server;
}

async function partner(): Promise<Partner> {
  const p: Partner = { url: '', hang: false, checksAnswered: 0, received: [], held: [], server: http.createServer() };
  p.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (p.hang) {
      p.held.push(res);
      return;
    }
    if (req.url !== '/readyz') p.received.push(`${req.method} ${req.url}`);
    else p.checksAnswered += 1;
    req.resume();
    req.on('end', () => res.end('partner'));
  });
  await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
  p.url = `http://127.0.0.1:${(p.server.address() as AddressInfo).port}`;
  return p;
}

async function close(p: Partner): Promise<void> {
  p.held.forEach((res) => res.destroy());
  p.server.closeAllConnections();
  await new Promise<void>((resolve) => p.server.close(() => resolve()));
}

/** Polls until `cond` holds; a bound, not a timing: fails after `boundMs`. */
async function until(cond: () => boolean, boundMs: number): Promise<number> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > boundMs) throw new Error(`not within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - start;
}

describe('PartnerCheck (docs/decisions/replicas.md#a-partner-that-hangs)', () => {
  let hung: Partner;
  const checks: PartnerCheck[] = [];
  beforeAll(async () => {
    hung = await partner();
  });
  afterEach(() => {
    checks.splice(0).forEach((c) => c.stop());
    hung.hang = false;
  });
  afterAll(async () => close(hung));

  it('when the partner takes connections but stops answering, then it is marked down within a few seconds, once, and up again once it answers', async () => {
    const changes: boolean[] = [];
    const lines: string[] = [];
    const logger = { warn: (_: object, m: string) => lines.push(`warn ${m}`), info: (_: object, m: string) => lines.push(`info ${m}`) };
    const check = new PartnerCheck({ url: hung.url, name: 'gateway', logger, onChange: (up) => changes.push(up) }).start();
    checks.push(check);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(check.up).toBe(true);
    hung.hang = true;
    // Two failed checks of 0.8 s, a second apart: about 2-3 s; 8 s is the bound on a loaded machine.
    await until(() => !check.up, 8_000);
    expect(hung.held.length).toBeGreaterThanOrEqual(2);
    hung.hang = false;
    await until(() => check.up, 8_000);
    expect(changes).toEqual([false, true]);
    expect(lines).toEqual(['warn paired partner failed its health checks: new calls go to the fallback', 'info paired partner answers its health checks again: calls go to it again']);
  }, 30_000);

  it('when the partner was not answering since the start (it started later), then its first answer counts it up at once; once it has answered, going down and up again takes two answers', async () => {
    hung.hang = true;
    const answeredAtChange: Array<[boolean, number]> = [];
    const check = new PartnerCheck({ url: hung.url, name: 'gateway', intervalMs: 100, timeoutMs: 80, onChange: (up) => answeredAtChange.push([up, hung.checksAnswered]) }).start();
    checks.push(check);
    await until(() => !check.up, 8_000);
    const before = hung.checksAnswered;
    hung.hang = false;
    await until(() => check.up, 8_000);
    expect(answeredAtChange).toEqual([[false, before], [true, before + 1]]);
    hung.hang = true;
    await until(() => !check.up, 8_000);
    const again = hung.checksAnswered;
    hung.hang = false;
    await until(() => check.up, 8_000);
    expect(answeredAtChange.slice(2)).toEqual([[false, again], [true, again + 2]]);
  }, 30_000);

  it('when the partner is refused or answers 503, then one check fails; a 200 passes', async () => {
    const check = new PartnerCheck({ url: hung.url, name: 'web' });
    expect(await check.checkOnce()).toBe(true);
    const closed = await partner();
    await close(closed);
    expect(await new PartnerCheck({ url: closed.url, name: 'web' }).checkOnce()).toBe(false);
    const draining = http.createServer((_req, res) => res.writeHead(503).end('stopping'));
    await new Promise<void>((resolve) => draining.listen(0, '127.0.0.1', resolve));
    expect(await new PartnerCheck({ url: `http://127.0.0.1:${(draining.address() as AddressInfo).port}`, name: 'web' }).checkOnce()).toBe(false);
    draining.close();
  });
});

describe('requestWhole and streamedRead with a partner check', () => {
  let own: Partner;
  let fallback: Partner;
  let check: PartnerCheck;
  beforeAll(async () => {
    [own, fallback] = await Promise.all([partner(), partner()]);
  });
  afterEach(() => {
    check.stop();
    own.hang = false;
    own.received.length = 0;
    fallback.received.length = 0;
  });
  afterAll(async () => Promise.all([close(own), close(fallback)]));

  it('when a GET is waiting on its partner as it is marked down, then it is cut and answered by the fallback; new calls, a POST too, go straight there', async () => {
    check = new PartnerCheck({ url: own.url, name: 'gateway' }).start();
    own.hang = true;
    const waiting = requestWhole(`${own.url}/api/a`, { method: 'GET', headers: {}, timeoutMs: 30_000, fallbackUrl: `${fallback.url}/api/a`, partner: check });
    const answer = await waiting;
    expect([answer.status, answer.text]).toEqual([200, 'partner']);
    expect(check.up).toBe(false);
    expect(fallback.received).toEqual(['GET /api/a']);
    const held = own.held.length;
    const post = await requestWhole(`${own.url}/api/b`, { method: 'POST', headers: {}, body: '{}', timeoutMs: 30_000, fallbackUrl: `${fallback.url}/api/b`, partner: check });
    expect(post.status).toBe(200);
    expect(fallback.received).toEqual(['GET /api/a', 'POST /api/b']);
    // Only the checks reached the hung partner after it was marked down: no call went to it.
    expect(own.held.length - held).toBeLessThanOrEqual(1);
    own.hang = false;
    await until(() => check.up, 8_000);
    await requestWhole(`${own.url}/api/c`, { method: 'GET', headers: {}, timeoutMs: 30_000, fallbackUrl: `${fallback.url}/api/c`, partner: check });
    expect(own.received).toEqual(['GET /api/c']);
  }, 30_000);

  it('when a POST is waiting on its partner as it is marked down, then it is not sent again: it fails at its own timeout and the fallback never sees it', async () => {
    check = new PartnerCheck({ url: own.url, name: 'gateway' }).start();
    own.hang = true;
    const post = requestWhole(`${own.url}/api/merge`, { method: 'POST', headers: {}, body: '{}', timeoutMs: 5_000, fallbackUrl: `${fallback.url}/api/merge`, partner: check });
    await expect(post).rejects.toThrow('no answer within 5000 ms');
    expect(check.up).toBe(false);
    expect(fallback.received).toEqual([]);
  }, 30_000);

  it('when no fallback is set, then a partner marked down changes nothing: the call waits on it', async () => {
    check = new PartnerCheck({ url: own.url, name: 'gateway' }).start();
    own.hang = true;
    await until(() => !check.up, 8_000);
    await expect(requestWhole(`${own.url}/api/d`, { method: 'GET', headers: {}, timeoutMs: 1_500, partner: check })).rejects.toThrow('no answer within 1500 ms');
    expect(fallback.received).toEqual([]);
  }, 30_000);

  it('when a streamed read (the web\'s and the face\'s raw reads) is waiting on its partner as it is marked down, then it is cut and answered by the fallback; new reads go straight there until it answers again', async () => {
    check = new PartnerCheck({ url: own.url, name: 'gateway' }).start();
    const read = (path: string) => streamedRead(path, { url: own.url, fallbackUrl: fallback.url, partner: check, headers: {}, timeoutMs: 30_000 });
    const first = await read('/raw/a');
    expect([first.status, await first.text()]).toEqual([200, 'partner']);
    expect(own.received).toEqual(['GET /raw/a']);
    own.hang = true;
    const cut = await read('/raw/b');
    expect([cut.status, await cut.text()]).toEqual([200, 'partner']);
    expect(check.up).toBe(false);
    expect(fallback.received).toEqual(['GET /raw/b']);
    const held = own.held.length;
    await (await read('/raw/c')).text();
    expect(fallback.received).toEqual(['GET /raw/b', 'GET /raw/c']);
    // Only the checks reached the hung partner after it was marked down.
    expect(own.held.length - held).toBeLessThanOrEqual(1);
    own.hang = false;
    await until(() => check.up, 8_000);
    await (await read('/raw/d')).text();
    expect(own.received).toEqual(['GET /raw/a', 'GET /raw/d']);
  }, 30_000);

  it('when no fallback is set, then a hung partner is waited on until the streamed read\'s own bound', async () => {
    check = new PartnerCheck({ url: own.url, name: 'gateway' }).start();
    own.hang = true;
    await until(() => !check.up, 8_000);
    await expect(streamedRead('/raw/e', { url: own.url, partner: check, headers: {}, timeoutMs: 1_500 })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(fallback.received).toEqual([]);
  }, 30_000);
});

describe('ownGateway readiness (docs/decisions/replicas.md#slow-is-not-hung)', () => {
  let own: Partner;
  let fallback: Partner;
  beforeAll(async () => {
    [own, fallback] = [await partner(), await partner()];
  });
  afterAll(async () => {
    await close(own);
    await close(fallback);
  });

  it('when the check has heard its own gateway, then readiness answers without asking anyone; while it is down, readiness is the fallback\'s answer', async () => {
    const { partner: check, ready } = ownGateway({ url: own.url, fallbackUrl: fallback.url });
    // Not heard yet: the fallback decides.
    expect(await ready()).toBe(true);
    expect([own.received, fallback.received]).toEqual([[], ['GET /healthz']]);
    check!.start();
    try {
      await until(() => check!.heard, 8_000);
      for (let i = 0; i < 5; i++) expect(await ready()).toBe(true);
      expect([own.received, fallback.received]).toEqual([[], ['GET /healthz']]);
      own.hang = true;
      await until(() => !check!.up, 8_000);
      expect(await ready()).toBe(true);
      expect(fallback.received).toEqual(['GET /healthz', 'GET /healthz']);
      fallback.hang = true;
      expect(await ready().catch(() => false)).toBe(false);
    } finally {
      check!.stop();
      own.hang = false;
      fallback.hang = false;
    }
  }, 30_000);
});
