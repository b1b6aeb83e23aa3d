import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { isoTime, requestIdOf } from './index.js';

const req = (h: Record<string, string>) => ({ headers: h }) as unknown as IncomingMessage;

describe('requestIdOf', () => {
  it('when the caller sends a sane id, then it is kept', () => {
    expect(requestIdOf(req({ 'x-request-id': 'abc-123' }))).toBe('abc-123');
  });
  it('when the id is missing or hostile, then a uuid is generated', () => {
    expect(requestIdOf(req({}))).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdOf(req({ 'x-request-id': 'bad id\n' }))).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('isoTime', () => {
  it('when a line is stamped, then its time field is what pino\'s isoTime writes, to the millisecond', () => {
    for (const ms of [0, 1_764_483_843_845, Date.UTC(2026, 10, 30, 6, 4, 3, 5), Date.UTC(999, 0, 9, 23, 59, 59, 999), Date.UTC(9999, 11, 31, 23, 59, 59, 999)]) {
      expect(isoTime(ms)).toBe(`,"time":"${new Date(ms).toISOString()}"`);
    }
    expect(isoTime(Date.UTC(2026, 10, 30, 6, 4, 3, 845))).toBe(',"time":"2026-11-30T06:04:03.845Z"');
  });
  it('when the year has more than four digits, then the extended form of toISOString is kept', () => {
    const ms = Date.UTC(10000, 0, 1);
    expect(isoTime(ms)).toBe(',"time":"+010000-01-01T00:00:00.000Z"');
  });
});

describe('setLogSink', () => {
  it('when a sink is set, then loggers created afterwards write their JSON lines there at its level, and unsetting it restores the default', async () => {
    const { createLogger, currentLogSink, setLogSink } = await import('./index.js');
    const lines: string[] = [];
    const sink = { destination: { write: (line: string) => void lines.push(line) }, level: 'info' };
    setLogSink(sink);
    try {
      expect(currentLogSink()).toBe(sink);
      createLogger('browse').info({ request_id: 'r-1' }, 'hello');
      createLogger('browse').debug('below the level');
    } finally {
      setLogSink(undefined);
    }
    expect(currentLogSink()).toBeUndefined();
    createLogger('browse').info('not captured');
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>).map((l) => [l.service, l.request_id, l.msg])).toEqual([['browse', 'r-1', 'hello']]);
  });
});

describe('httpLogger', () => {
  it('when a request carries an X-Request-Id, then its completion line and req.log lines carry it as request_id and the response echoes it', async () => {
    const { createServer } = await import('node:http');
    const { pino } = await import('pino');
    const { httpLogger } = await import('./index.js');
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info', messageKey: 'msg' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const middleware = httpLogger(logger);
    const server = createServer((req, res) => {
      middleware(req, res);
      (req as typeof req & { log: typeof logger }).log.info('handling');
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/x`, { headers: { 'X-Request-Id': 'trace-1' } });
      expect([await res.text(), res.headers.get('x-request-id')]).toEqual(['ok', 'trace-1']);
      // The completion line is written on the response's finish, which can trail the client's read.
      while (lines.length < 2) await new Promise((r) => setTimeout(r, 5));
      expect(lines.map((l) => [l.msg, l.request_id])).toEqual([
        ['handling', 'trace-1'],
        ['request completed', 'trace-1'],
      ]);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('httpLogger lines', () => {
  async function serve(handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) {
    const { createServer } = await import('node:http');
    const { pino } = await import('pino');
    const { httpLogger } = await import('./index.js');
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info', messageKey: 'msg', base: { service: 'browse' } }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const middleware = httpLogger(logger);
    const server = createServer((req, res) => middleware(req, res, () => handler(req, res)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as { port: number };
    const waitFor = async (n: number) => {
      while (lines.length < n) await new Promise((r) => setTimeout(r, 5));
      return lines;
    };
    return { port, waitFor, close: () => new Promise<void>((r) => server.close(() => r())) };
  }

  it('when a request is answered, then one line names the method, the URL as sent, the status and the duration', async () => {
    const s = await serve((req, res) => {
      req.url = '/rewritten-by-a-router';
      res.statusCode = 404;
      res.end('{}');
    });
    try {
      const res = await fetch(`http://127.0.0.1:${s.port}/api/repos/a/b/tree/main?x=1`);
      await res.text();
      const [line] = await s.waitFor(1);
      expect(line).toMatchObject({ service: 'browse', msg: 'request completed', req: { method: 'GET', url: '/api/repos/a/b/tree/main?x=1' }, res: { status: 404 } });
      expect(typeof line!.request_id).toBe('string');
      expect(typeof line!.duration_ms).toBe('number');
    } finally {
      await s.close();
    }
  });

  it('when the answer is a 5xx, then the line says the request errored', async () => {
    const s = await serve((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    try {
      await (await fetch(`http://127.0.0.1:${s.port}/x`)).text();
      expect((await s.waitFor(1)).map((l) => [l.msg, (l.res as { status: number }).status])).toEqual([['request errored', 503]]);
    } finally {
      await s.close();
    }
  });

  it('when the client leaves before the answer, then the line says the request was aborted', async () => {
    const { request } = await import('node:http');
    let answer: (() => void) | undefined;
    const s = await serve((_req, res) => {
      answer = () => res.end('late');
    });
    try {
      const req = request({ host: '127.0.0.1', port: s.port, path: '/slow' });
      req.on('error', () => undefined);
      req.end();
      while (!answer) await new Promise((r) => setTimeout(r, 5));
      req.destroy();
      expect((await s.waitFor(1)).map((l) => l.msg)).toEqual(['request aborted']);
    } finally {
      answer?.();
      await s.close();
    }
  });
});
