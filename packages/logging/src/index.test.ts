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
