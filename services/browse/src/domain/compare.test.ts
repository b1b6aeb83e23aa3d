import { describe, expect, it } from '@jest/globals';
import { compareFields, compareStatus, parseCompareSpec } from './compare.js';

describe('parseCompareSpec', () => {
  it('when both sides are plain names, then they are split on the ...', () => {
    expect(parseCompareSpec('main...feature')).toEqual({ base: 'main', head: 'feature' });
  });

  it('when the names have slashes and dots, then the first ... separates them', () => {
    expect(parseCompareSpec('release/v1.0...feature/x.y')).toEqual({ base: 'release/v1.0', head: 'feature/x.y' });
  });

  it('when the spec is percent-encoded, then it is decoded exactly once', () => {
    expect(parseCompareSpec('feature%2Fx...main')).toEqual({ base: 'feature/x', head: 'main' });
    expect(parseCompareSpec('a%252Fb...main')).toEqual({ base: 'a%2Fb', head: 'main' });
    expect(parseCompareSpec('main%2E%2E%2Efeature')).toEqual({ base: 'main', head: 'feature' });
  });

  it('when a side has empty segments, then they are ignored as in ref_and_path', () => {
    expect(parseCompareSpec('main.../feature/')).toEqual({ base: 'main', head: 'feature' });
  });

  it.each(['main', 'main..feature', '...feature', 'main...', '...', '/...feature'])('when the spec is %p, then 400 naming the form', (spec) => {
    expect(() => parseCompareSpec(spec)).toThrow(expect.objectContaining({ kind: 'validation', message: 'Compare must be written {base}...{head}' }));
  });

  it('when the escape is malformed or holds a NUL, then 400', () => {
    expect(() => parseCompareSpec('main...%zz')).toThrow(expect.objectContaining({ kind: 'validation', message: 'Invalid path encoding' }));
    expect(() => parseCompareSpec('main...a%00b')).toThrow(expect.objectContaining({ kind: 'validation', message: 'Invalid path' }));
  });
});

describe('compareStatus', () => {
  it.each([
    [2, 0, 'ahead'],
    [0, 3, 'behind'],
    [1, 1, 'diverged'],
    [0, 0, 'identical'],
  ] as const)('when ahead_by is %p and behind_by %p, then %p', (ahead, behind, status) => {
    expect(compareStatus(ahead, behind)).toBe(status);
  });
});

describe('compareFields', () => {
  it('when serialised, then the diff elements keep the CONTRACT §5 key order and the commits come from the given serialiser', () => {
    const entry = { patch: '@@ -0,0 +1 @@\n+a\n', binary: false, deletions: 0, additions: 1, new_sha: 'b'.repeat(40), old_sha: null, new_mode: '100644', old_mode: null, status: 'added' as const, old_path: 'a', path: 'a' };
    const text = compareFields(
      { mergeBase: 'm'.repeat(40), aheadBy: 1, behindBy: 0, commits: [{ oid: 'c'.repeat(40), raw: Buffer.from('x') }] },
      { files: [entry], truncated: false },
      (oid) => JSON.stringify({ sha: oid }),
    );
    const body = JSON.parse(`{${text}}`) as Record<string, unknown>;
    expect(body).toEqual({ merge_base: 'm'.repeat(40), status: 'ahead', ahead_by: 1, behind_by: 0, commits: [{ sha: 'c'.repeat(40) }], diff: [entry], diff_truncated: false });
    expect(Object.keys((body.diff as object[])[0]!)).toEqual(['path', 'old_path', 'status', 'old_mode', 'new_mode', 'old_sha', 'new_sha', 'additions', 'deletions', 'binary', 'patch']);
  });
});
