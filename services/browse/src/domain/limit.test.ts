import { describe, expect, it } from '@jest/globals';
import { parseLimit } from './limit.js';

describe('parseLimit (seed §4 browsing rule 5, CONTRACT §9)', () => {
  it('when absent, then 20', () => expect(parseLimit(undefined)).toBe(20));
  it('when empty, then 20', () => expect(parseLimit('')).toBe(20));
  it('when 5, then 5', () => expect(parseLimit('5')).toBe(5));
  it('when 100, then 100', () => expect(parseLimit('100')).toBe(100));
  it('when 150, then capped at 100', () => expect(parseLimit('150')).toBe(100));
  it('when 0, then 20', () => expect(parseLimit('0')).toBe(20));
  it('when -5, then 20', () => expect(parseLimit('-5')).toBe(20));
  it('when abc, then 20', () => expect(parseLimit('abc')).toBe(20));
  it('when 1e9, then 20 (not an integer literal)', () => expect(parseLimit('1e9')).toBe(20));
  it('when 5.5, then 20', () => expect(parseLimit('5.5')).toBe(20));
  it('when a huge digit string, then capped at 100', () => expect(parseLimit('99999999999999999999999')).toBe(100));
  it('when repeated (an array), then 20', () => expect(parseLimit(['5', '6'])).toBe(20));
});
