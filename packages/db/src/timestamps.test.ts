import { describe, expect, it } from '@jest/globals';
import { iso, isoOrNull } from './timestamps.js';

describe('a timestamptz column as the API speaks it', () => {
  it('when it is a Date, then its ISO 8601 form in UTC, milliseconds kept', () => {
    expect(iso(new Date(Date.UTC(2026, 11, 3, 7, 5, 9, 42)))).toBe('2026-12-03T07:05:09.042Z');
  });

  it('when it is text with an offset, then the same instant in UTC', () => {
    expect(iso('2026-12-03 08:05:09.042+01')).toBe('2026-12-03T07:05:09.042Z');
  });

  it('when it is missing, then isoOrNull gives null and iso refuses', () => {
    expect([isoOrNull(null), isoOrNull(undefined)]).toEqual([null, null]);
    expect(isoOrNull(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
    expect(() => iso(undefined)).toThrow(RangeError);
  });
});
