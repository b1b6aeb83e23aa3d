import { describe, expect, it } from '@jest/globals';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './json-depth.js';
import { fieldWithNul } from './nul.js';

const nested = (depth: number, inner = '1') => `${'{"a":['.repeat(depth / 2)}${inner}${']}'.repeat(depth / 2)}`;

describe('nestedDeeperThan', () => {
  it('when objects and arrays nest exactly to the limit, then the text passes; one level more, then it is refused', () => {
    expect(nestedDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestedDeeperThan(`[${nested(MAX_JSON_DEPTH)}]`)).toBe(true);
    expect(nestedDeeperThan('[[[1]]]', 3)).toBe(false);
    expect(nestedDeeperThan('[[[[1]]]]', 3)).toBe(true);
  });

  it('when brackets are inside strings, escaped quotes and backslashes included, then they do not count', () => {
    expect(nestedDeeperThan(JSON.stringify({ a: '[[[[{{{{'.repeat(100) }), 2)).toBe(false);
    expect(nestedDeeperThan('{"a":"\\"[[[[[[","b":"\\\\"}', 1)).toBe(false);
    // After an escaped backslash the string ends, so the brackets that follow count.
    expect(nestedDeeperThan('{"a":"\\\\",  "b":[[[1]]]}', 3)).toBe(true);
    expect(nestedDeeperThan('["\\u005b\\u005b\\u005b"]', 1)).toBe(false);
  });

  it('when siblings are many but each shallow, then depth is what counts, not the number of brackets', () => {
    expect(nestedDeeperThan(JSON.stringify(Array.from({ length: 10_000 }, () => [{ a: [1] }])), 4)).toBe(false);
  });

  it('when the text nests 1,000,000 levels deep, then it is refused without exhausting the stack', () => {
    expect(nestedDeeperThan('['.repeat(1_000_000) + ']'.repeat(1_000_000))).toBe(true);
  });
});

describe('fieldWithNul', () => {
  it('when a value nests 100,000 levels deep, then the walk finishes without recursion and names the field', () => {
    const value = JSON.parse(`${'['.repeat(100_000)}"x\\u0000"${']'.repeat(100_000)}`) as unknown;
    // Compared as a boolean: a failure should not print a 300,000-character name.
    expect(fieldWithNul(value) === '[0]'.repeat(100_000)).toBe(true);
    expect(fieldWithNul(JSON.parse(`${'['.repeat(100_000)}1${']'.repeat(100_000)}`))).toBeUndefined();
  });

  it('when keys and values hold NUL, then the first one in document order is named', () => {
    expect(fieldWithNul({ a: 'ok', b: { 'c\0': 1 }, d: 'x\0' })).toBe('b.c\0');
    expect(fieldWithNul({ a: ['ok', 'x\0'], 'b\0': 1 })).toBe('a[1]');
    expect(fieldWithNul({ 'a\0': 'x\0' })).toBe('a\0');
    expect(fieldWithNul('\0')).toBe('body');
    expect(fieldWithNul({ a: [1, null, true, { b: 'fine' }] })).toBeUndefined();
  });
});
