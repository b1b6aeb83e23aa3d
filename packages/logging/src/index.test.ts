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
