import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { requestIdOf } from './index.js';

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

describe('setLogSink', () => {
  it('when a sink is set, then loggers created afterwards write their JSON lines there at its level, and unsetting it restores the default', async () => {
    const { createLogger, setLogSink } = await import('./index.js');
    const lines: string[] = [];
    setLogSink({ destination: { write: (line: string) => void lines.push(line) }, level: 'info' });
    try {
      createLogger('browse').info({ request_id: 'r-1' }, 'hello');
      createLogger('browse').debug('below the level');
    } finally {
      setLogSink(undefined);
    }
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
