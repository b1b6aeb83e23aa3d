import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { AppError } from '@githost/errors';
import { credentialOf } from './credentials.js';

const req = (authorization: string | undefined, query: Record<string, unknown> = {}) => ({ headers: authorization === undefined ? {} : { authorization }, query }) as unknown as Request;

describe('credentialOf', () => {
  it('when the token comes in any of Gitea\'s forms, then the gateway gets it as `token X` (Basic as sent)', () => {
    expect(credentialOf(req('token abc'))).toBe('token abc');
    expect(credentialOf(req('Bearer abc'))).toBe('token abc');
    expect(credentialOf(req('bearer  abc '))).toBe('token abc');
    expect(credentialOf(req('Basic YW5uOmFiYw=='))).toBe('Basic YW5uOmFiYw==');
    expect(credentialOf(req(undefined, { token: 'abc' }))).toBe('token abc');
    expect(credentialOf(req(undefined, { access_token: 'abc' }))).toBe('token abc');
  });

  it('when both a header and a query token come, then the header wins; neither: anonymous', () => {
    expect(credentialOf(req('token header', { token: 'query' }))).toBe('token header');
    expect(credentialOf(req(undefined))).toBeUndefined();
    expect(credentialOf(req(undefined, { token: '' }))).toBeUndefined();
  });

  it('when the header is of another scheme or malformed, or the query token repeated, then 401', () => {
    for (const bad of [req('Digest abc'), req('token'), req('token a b'), req(undefined, { token: ['a', 'b'] }), req(undefined, { token: 'a b' })]) {
      expect(() => credentialOf(bad)).toThrow(AppError);
      try {
        credentialOf(bad);
      } catch (err) {
        expect((err as AppError).kind).toBe('unauthenticated');
      }
    }
  });
});
