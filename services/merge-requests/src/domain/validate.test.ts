import { describe, expect, it } from '@jest/globals';
import { isValidBranchName, parseNumber, stateFilter, validateComment, validateCreate } from './validate.js';

const base = { title: 'Add x', source_branch: 'feature', target_branch: 'main' };
const messageOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return { kind: (err as { kind: string }).kind, message: (err as Error).message };
  }
  return null;
};

describe('validateCreate', () => {
  it.each([
    ['title', { ...base, title: undefined }],
    ['source_branch', { ...base, source_branch: '' }],
    ['target_branch', { ...base, target_branch: undefined }],
    ['a whitespace-only title', { ...base, title: '   ' }],
    ['a non-string title', { ...base, title: 5 }],
  ])('when %s is missing or empty, then seed rule 1 message as a validation error', (_what, body) => {
    expect(messageOf(() => validateCreate(body))).toEqual({ kind: 'validation', message: 'title, source_branch, and target_branch are required' });
  });

  it('when the body is not an object, then the required-fields message', () => {
    expect(messageOf(() => validateCreate(null))?.message).toBe('title, source_branch, and target_branch are required');
  });

  it('when source equals target, then seed rule 2 message', () => {
    expect(messageOf(() => validateCreate({ ...base, target_branch: 'feature' }))).toEqual({ kind: 'validation', message: 'Source and target branches must be different' });
  });

  it('when fields are missing AND branches are equal, then the required message comes first', () => {
    expect(messageOf(() => validateCreate({ source_branch: 'a', target_branch: 'a' }))?.message).toBe('title, source_branch, and target_branch are required');
  });

  it('when description is omitted, then it is null', () => {
    expect(validateCreate(base)).toEqual({ ...base, description: null });
  });

  it('when the title is over 255 characters, then 400 with a message', () => {
    expect(messageOf(() => validateCreate({ ...base, title: 'x'.repeat(256) }))).toEqual({ kind: 'validation', message: 'Title must be at most 255 characters' });
    expect(validateCreate({ ...base, title: 'x'.repeat(255) }).title).toHaveLength(255);
  });

  it('when the description is over 65536 characters or not a string, then 400', () => {
    expect(messageOf(() => validateCreate({ ...base, description: 'x'.repeat(65_537) }))?.message).toBe('Description must be at most 65536 characters');
    expect(messageOf(() => validateCreate({ ...base, description: 7 }))?.message).toBe('description must be a string');
  });
});

describe('validateComment', () => {
  it.each([[{}], [{ body: '' }], [{ body: '  \n' }], [{ body: 3 }]])('when the body is %j, then `Comment body is required`', (b) => {
    expect(messageOf(() => validateComment(b))).toEqual({ kind: 'validation', message: 'Comment body is required' });
  });

  it('when only the body is given, then file_path, line_number and diff_side are null', () => {
    expect(validateComment({ body: 'nice' })).toEqual({ body: 'nice', file_path: null, line_number: null, diff_side: null });
  });

  it.each([[0], [-3], [1.5], ['7'], [true]])('when line_number is %j, then `line_number must be a positive integer`', (n) => {
    expect(messageOf(() => validateComment({ body: 'x', line_number: n }))).toEqual({ kind: 'validation', message: 'line_number must be a positive integer' });
  });

  it.each([['left'], ['OLD'], [1]])('when diff_side is %j, then the diff_side message', (side) => {
    expect(messageOf(() => validateComment({ body: 'x', diff_side: side }))?.message).toBe('diff_side must be "old" or "new"');
  });

  it('when every optional field is valid, then they are kept', () => {
    expect(validateComment({ body: 'b', file_path: 'src/a.ts', line_number: 12, diff_side: 'new' })).toEqual({ body: 'b', file_path: 'src/a.ts', line_number: 12, diff_side: 'new' });
  });

  it('when the body is over 65536 characters, then 400', () => {
    expect(messageOf(() => validateComment({ body: 'x'.repeat(65_537) }))?.message).toBe('Comment body must be at most 65536 characters');
  });
});

describe('parseNumber', () => {
  it('when the number is a positive integer, then it is parsed', () => {
    expect(parseNumber('42')).toBe(42);
  });

  it('when the integer has leading zeros, then it is the same number (seed §4: parsed as an integer)', () => {
    expect([parseNumber('01'), parseNumber('007')]).toEqual([1, 7]);
  });

  it.each([['abc'], ['1.5'], ['1.0'], ['-1'], ['0'], ['00'], ['1e3'], [' 1'], ['99999999999']])('when it is %s, then 404 `Merge request #<raw> not found`', (raw) => {
    expect(messageOf(() => parseNumber(raw))).toEqual({ kind: 'not_found', message: `Merge request #${raw} not found` });
  });
});

describe('stateFilter', () => {
  it('when state is missing or empty, then open; otherwise exactly as given', () => {
    expect(stateFilter(undefined)).toBe('open');
    expect(stateFilter('')).toBe('open');
    expect(stateFilter('Merged')).toBe('Merged');
    expect(stateFilter(['merged', 'open'])).toBe('merged');
  });
});

describe('isValidBranchName', () => {
  it('when names follow git check-ref-format, then true; otherwise false', () => {
    for (const ok of ['main', 'feature/x', 'release-1.0', 'a_b']) expect(isValidBranchName(ok)).toBe(true);
    for (const bad of ['-x', 'a..b', 'a b', 'a~1', 'a^', 'x:y', '.hidden', 'a/.b', 'x.lock', 'a//b', 'a/', 'a@{1}', '@', 'a\\b', 'a*']) {
      expect(isValidBranchName(bad)).toBe(false);
    }
  });
});
