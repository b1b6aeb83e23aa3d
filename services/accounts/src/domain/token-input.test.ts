import { describe, expect, it } from '@jest/globals';
import { closeScopes, grantScopes } from './scopes.js';
import { parseCreateToken, parseExpiresAt, parseScopes } from './token-input.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const FORMAT = 'expires_at must be an ISO 8601 date-time with a time zone, e.g. 2030-01-31T00:00:00Z';

describe('token input', () => {
  it('when expires_at is a future date-time with a zone, then it is kept as UTC ISO 8601', () => {
    expect(parseExpiresAt('2026-06-01T12:00:01Z', NOW)).toBe('2026-06-01T12:00:01.000Z');
    expect(parseExpiresAt('2027-01-01T02:30:00+02:30', NOW)).toBe('2027-01-01T00:00:00.000Z');
    expect(parseExpiresAt('2028-02-29T00:00:00.123456Z', NOW)).toBe('2028-02-29T00:00:00.123Z');
    expect(parseExpiresAt(undefined, NOW)).toBeNull();
    expect(parseExpiresAt(null, NOW)).toBeNull();
  });

  it.each([
    ['2030-01-01'], ['2030-01-01T00:00:00'], ['2030-02-30T00:00:00Z'], ['2027-02-29T00:00:00Z'], ['2030-13-01T00:00:00Z'],
    ['2030-01-01T24:00:00Z'], ['2030-01-01T00:60:00Z'], ['2030-01-01T00:00:00+24:00'], ['tomorrow'], [' 2030-01-01T00:00:00Z'],
    ['2030-01-01T00:00:00Z\u0000'], [1893456000], [true], [{}],
  ])('when expires_at is %j, then it is 400 with the expected format', (value) => {
    expect(() => parseExpiresAt(value, NOW)).toThrow(FORMAT);
  });

  it('when expires_at is now or in the past, then it is 400 expires_at must be in the future', () => {
    expect(() => parseExpiresAt('2026-06-01T12:00:00Z', NOW)).toThrow('expires_at must be in the future');
    expect(() => parseExpiresAt('2001-01-01T00:00:00Z', NOW)).toThrow('expires_at must be in the future');
  });

  it('when scopes are given, then only a non-empty array of known scopes passes', () => {
    expect(parseScopes(['read'])).toEqual(['read']);
    expect(parseScopes(undefined)).toBeUndefined();
    expect(() => parseScopes([])).toThrow('scopes must not be empty');
    for (const bad of ['read', ['read', 'delete'], [null], ['READ'], { read: true }]) {
      expect(() => parseScopes(bad)).toThrow('scopes must be an array of "read", "write" and "admin"');
    }
  });

  it('when a whole body is parsed, then name, scopes and expiry come back checked', () => {
    expect(parseCreateToken({ name: ' ci ', scopes: ['write'], expires_at: '2030-01-01T00:00:00Z' }, NOW)).toEqual({ name: 'ci', scopes: ['write'], expires_at: '2030-01-01T00:00:00.000Z' });
    expect(parseCreateToken(undefined, NOW)).toEqual({ name: null, scopes: undefined, expires_at: null });
    expect(() => parseCreateToken([], NOW)).toThrow('Request body must be a JSON object');
  });
});

describe('token scopes', () => {
  it('when scopes are closed, then each brings the ones below it', () => {
    expect(closeScopes(['read'])).toEqual(['read']);
    expect(closeScopes(['write'])).toEqual(['read', 'write']);
    expect(closeScopes(['admin', 'read'])).toEqual(['read', 'write', 'admin']);
  });

  it('when scopes are granted, then the default is what the holder has and more than that is refused', () => {
    expect(grantScopes({ is_admin: false }, undefined)).toEqual(['read', 'write']);
    expect(grantScopes({ is_admin: true }, undefined)).toEqual(['read', 'write', 'admin']);
    expect(grantScopes({ is_admin: true }, ['read'])).toEqual(['read']);
    expect(() => grantScopes({ is_admin: false }, ['admin'])).toThrow('The "admin" scope is only for site admins');
  });
});
