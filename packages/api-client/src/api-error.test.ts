import { describe, expect, it } from '@jest/globals';
import { apiError } from './api.js';

describe('apiError', () => {
  it('when the API answers a status, then the page sees the kind packages/errors gives it, a stray edge refusal as the form\'s error, and any 5xx as unavailable', () => {
    const statuses = [400, 401, 403, 404, 408, 409, 413, 414, 415, 418, 422, 431, 500, 502, 503];
    expect(Object.fromEntries(statuses.map((s) => [s, apiError(s, 'm').kind]))).toEqual({
      400: 'validation',
      401: 'unauthenticated',
      403: 'forbidden',
      404: 'not_found',
      408: 'validation',
      409: 'conflict',
      413: 'too_large',
      414: 'uri_too_long',
      415: 'unsupported_media_type',
      418: 'validation',
      422: 'unprocessable',
      431: 'validation',
      500: 'unavailable',
      502: 'unavailable',
      503: 'unavailable',
    });
  });

  it('when the API answers 429, then it is unavailable with its own message and the status kept', () => {
    const err = apiError(429, 'slow down');
    expect([err.kind, err.message, err.details]).toEqual(['unavailable', 'Too many requests: try again in a minute', { status: 429 }]);
  });
});
