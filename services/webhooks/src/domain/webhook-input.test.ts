import { describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { isRecordId, MAX_URL_LENGTH, parseNewWebhook } from './webhook-input.js';

const rejects = (body: unknown, message: string) => {
  let caught: unknown;
  try {
    parseNewWebhook(body);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(AppError);
  expect((caught as AppError).kind).toBe('validation');
  expect((caught as AppError).message).toBe(message);
};

describe('parseNewWebhook', () => {
  it('when url is missing or empty, then URL is required (seed §4 webhooks rule 2)', () => {
    rejects({}, 'URL is required');
    rejects({ url: '' }, 'URL is required');
    rejects({ url: '   ' }, 'URL is required');
    rejects(null, 'URL is required');
  });

  it('when only url is given, then events is push and secret null (seed §4 webhooks rule 3)', () => {
    expect(parseNewWebhook({ url: 'https://example.com/hook' })).toEqual({ url: 'https://example.com/hook', secret: null, events: 'push' });
  });

  it('when the secret is an empty string, then it is stored as null (CONTRACT §9)', () => {
    expect(parseNewWebhook({ url: 'http://example.com', secret: '' }).secret).toBeNull();
    expect(parseNewWebhook({ url: 'http://example.com', secret: 's3cret' }).secret).toBe('s3cret');
  });

  it('when url is not http(s), then it is refused', () => {
    rejects({ url: 'ftp://example.com/x' }, 'URL must use http or https');
    rejects({ url: 'file:///etc/passwd' }, 'URL must use http or https');
  });

  it('when url carries credentials, then it is refused', () => {
    rejects({ url: 'https://user:pw@example.com/' }, 'URL must not contain credentials');
  });

  it('when url is longer than 2 KB, then it is refused', () => {
    rejects({ url: `https://example.com/${'a'.repeat(MAX_URL_LENGTH)}` }, `URL must be at most ${MAX_URL_LENGTH} characters`);
  });

  it('when url is not a URL or not a string, then it is refused', () => {
    rejects({ url: 'not a url' }, 'URL is not a valid URL');
    rejects({ url: 42 }, 'url must be a string');
  });

  it('when secret or events have the wrong type, then they are refused', () => {
    rejects({ url: 'https://example.com', secret: 5 }, 'secret must be a string');
    rejects({ url: 'https://example.com', events: ['push'] }, 'events must be a string');
  });
});

describe('isRecordId', () => {
  it('when given a uuid, then it is an id; otherwise not', () => {
    expect(isRecordId('3f1c2a9e-8d3b-4c7a-9f0e-1b2c3d4e5f60')).toBe(true);
    expect(isRecordId('1')).toBe(false);
    expect(isRecordId("x' OR 1=1")).toBe(false);
  });
});
