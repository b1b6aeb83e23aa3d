import { describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { refPrefixes, resolveCommitsRef, resolveRefAndPath } from './ref-and-path.js';
import { buildRefSet } from './refs.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const T = 'd'.repeat(40);
const HEX = '0123456789abcdef0123456789abcdef01234567';

const refs = buildRefSet([
  { name: 'refs/heads/main', target: A, peeled: '' },
  { name: 'refs/heads/feature/x', target: B, peeled: '' },
  { name: 'refs/tags/feature', target: C, peeled: '' },
  { name: 'refs/tags/v1', target: T, peeled: A },
  { name: 'refs/heads/same', target: A, peeled: '' },
  { name: 'refs/tags/same', target: B, peeled: '' },
  { name: `refs/heads/${HEX}`, target: C, peeled: '' },
]);

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('resolveRefAndPath (seed §4 browsing rule 2)', () => {
  it('when ref_and_path is empty, then the ref is the default branch and the path is empty', () => {
    expect(resolveRefAndPath('', refs, 'main')).toEqual({ ref: { ref: 'main', kind: 'branch', sha: A }, path: '' });
  });

  it('when the first segment names a branch, then the rest is the path', () => {
    expect(resolveRefAndPath('main/src/index.ts', refs, 'main')).toEqual({ ref: { ref: 'main', kind: 'branch', sha: A }, path: 'src/index.ts' });
  });

  it('when a branch name contains a slash, then the longest leading run of segments is the ref', () => {
    expect(resolveRefAndPath('feature/x/docs/a.md', refs, 'main')).toEqual({ ref: { ref: 'feature/x', kind: 'branch', sha: B }, path: 'docs/a.md' });
  });

  it('when a tag is a prefix of a longer branch name, then the shorter tag wins only where the branch does not match', () => {
    expect(resolveRefAndPath('feature/y/z', refs, 'main')).toEqual({ ref: { ref: 'feature', kind: 'tag', sha: C }, path: 'y/z' });
  });

  it('when an annotated tag is named, then the ref resolves to the commit it peels to', () => {
    expect(resolveRefAndPath('v1/README', refs, 'main').ref).toEqual({ ref: 'v1', kind: 'tag', sha: A });
  });

  it('when a branch and a tag share a name, then the branch wins', () => {
    expect(resolveRefAndPath('same', refs, 'main').ref).toEqual({ ref: 'same', kind: 'branch', sha: A });
  });

  it('when no name matches and the first segment is 40 lowercase hex, then it is a commit ref', () => {
    expect(resolveRefAndPath(`${'e'.repeat(40)}/a/b`, refs, 'main')).toEqual({ ref: { ref: 'e'.repeat(40), kind: 'sha', sha: 'e'.repeat(40) }, path: 'a/b' });
  });

  it('when a branch is named like a 40-hex id, then the branch wins over the sha rule', () => {
    expect(resolveRefAndPath(`${HEX}/f`, refs, 'main').ref).toEqual({ ref: HEX, kind: 'branch', sha: C });
  });

  it('when the 40-hex segment has upper-case letters, then it is not a sha and the ref is not found', () => {
    expect(errorOf(() => resolveRefAndPath('E'.repeat(40), refs, 'main')).message).toBe(`Ref not found: ${'E'.repeat(40)}`);
  });

  it('when nothing matches, then the first segment is the ref and it is not found', () => {
    const err = errorOf(() => resolveRefAndPath('nope/a/b', refs, 'main'));
    expect([err.kind, err.message]).toEqual(['not_found', 'Ref not found: nope']);
  });

  it('when the remainder is percent-encoded, then it is decoded once before splitting', () => {
    expect(resolveRefAndPath('feature%2Fx/a%20b.txt', refs, 'main')).toEqual({ ref: { ref: 'feature/x', kind: 'branch', sha: B }, path: 'a b.txt' });
  });

  it('when the remainder is double-encoded, then only one layer is decoded', () => {
    expect(resolveRefAndPath('main/%252e%252e', refs, 'main').path).toBe('%2e%2e');
  });

  it('when segments are empty (leading, doubled or trailing slashes), then they are ignored', () => {
    expect(resolveRefAndPath('/main//src/', refs, 'main')).toEqual({ ref: { ref: 'main', kind: 'branch', sha: A }, path: 'src' });
  });

  it('when the path has a .. segment, then it is not found (no tree entry can be named ..)', () => {
    const err = errorOf(() => resolveRefAndPath('main/../etc/passwd', refs, 'main'));
    expect([err.kind, err.message]).toEqual(['not_found', 'Path not found: ../etc/passwd']);
  });

  it('when the path has an encoded .. segment, then it is not found too', () => {
    expect(errorOf(() => resolveRefAndPath('main/%2e%2e/x', refs, 'main')).message).toBe('Path not found: ../x');
  });

  it('when the path has a . segment, then it is not found', () => {
    expect(errorOf(() => resolveRefAndPath('main/./README.md', refs, 'main')).message).toBe('Path not found: ./README.md');
  });

  it('when the path holds a NUL byte, then it is a 400', () => {
    expect(errorOf(() => resolveRefAndPath('main/a%00b', refs, 'main')).message).toBe('Invalid path');
  });

  it('when the percent-encoding is malformed, then it is a 400', () => {
    expect(errorOf(() => resolveRefAndPath('main/%zz', refs, 'main')).message).toBe('Invalid path encoding');
  });

  it('when the ref is a revision expression like main~1, then it is not found', () => {
    expect(errorOf(() => resolveRefAndPath('main~1/README', refs, 'main')).message).toBe('Ref not found: main~1');
  });

  it('when the ref is HEAD@{1}, then it is not found', () => {
    expect(errorOf(() => resolveRefAndPath('HEAD@{1}', refs, 'main')).message).toBe('Ref not found: HEAD@{1}');
  });

  it('when the ref looks like an option, then it is not found and never an option', () => {
    expect(errorOf(() => resolveRefAndPath('--output=%2Ftmp%2Fx', refs, 'main')).message).toBe('Ref not found: --output=');
  });

  it('when the repository is empty, then the default branch is not found', () => {
    expect(errorOf(() => resolveRefAndPath('', buildRefSet([]), 'main')).message).toBe('Ref not found: main');
  });
});

describe('resolveCommitsRef (seed §4 browsing rule 5)', () => {
  it('when the ref is empty, then it is the default branch', () => {
    expect(resolveCommitsRef('', refs, 'main')).toEqual({ ref: 'main', kind: 'branch', sha: A });
  });

  it('when the ref contains slashes, then the whole remainder is the ref', () => {
    expect(resolveCommitsRef('feature/x', refs, 'main')).toEqual({ ref: 'feature/x', kind: 'branch', sha: B });
  });

  it('when the remainder names nothing, then it is not found with the whole remainder', () => {
    expect(errorOf(() => resolveCommitsRef('feature/y', refs, 'main')).message).toBe('Ref not found: feature/y');
  });

  it('when the ref is -n, then it is not found', () => {
    expect(errorOf(() => resolveCommitsRef('-n', refs, 'main')).message).toBe('Ref not found: -n');
  });

  it('when the ref is 40 hex, then it is a commit ref', () => {
    expect(resolveCommitsRef('f'.repeat(40), refs, 'main')).toEqual({ ref: 'f'.repeat(40), kind: 'sha', sha: 'f'.repeat(40) });
  });
});

describe('refPrefixes (load only the refs that could match)', () => {
  it('when ref_and_path is empty, then only the default branch', () => {
    expect(refPrefixes('', 'main', false)).toEqual(['refs/heads/main']);
  });

  it('when splitting, then branches and tags under the first segment cover every candidate', () => {
    expect(refPrefixes('feature/x/docs', 'main', false)).toEqual(['refs/heads/feature', 'refs/tags/feature']);
  });

  it('when the whole remainder is the ref, then exactly that name', () => {
    expect(refPrefixes('feature%2Fx', 'main', true)).toEqual(['refs/heads/feature/x', 'refs/tags/feature/x']);
  });

  it('when the name is longer than any ref can be, then nothing is loaded', () => {
    expect(refPrefixes('x'.repeat(2000), 'main', false)).toEqual([]);
  });

  it('when only the shorter prefix can still name a ref, then only that one is asked for', () => {
    const name = 'x'.repeat(1014);
    expect(refPrefixes(name, 'main', false)).toEqual([`refs/tags/${name}`]);
  });
});
