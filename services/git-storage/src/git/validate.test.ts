import { describe, expect, it } from '@jest/globals';
import { validateAbbrevOid, validateBranchName, validateCommitExpression, validateOid, validatePath, validateRefName, validateRepositoryId, validateRevision } from './validate.js';

const long = 'a/'.repeat(3000) + 'b';

describe('validateRefName', () => {
  it.each(['refs/heads/main', 'refs/heads/feature/x', 'refs/tags/v1.0', 'refs/heads/a-b_c'])('when %s is given, then it is accepted', (ref) => {
    expect(validateRefName(ref)).toBe(ref);
  });

  it.each([
    ['a leading dash', '-refs/heads/x'],
    ['a dash-led component', 'refs/heads/-n'],
    ['an option', '--output=/tmp/x'],
    ['..', 'refs/heads/a..b'],
    ['a NUL byte', 'refs/heads/a\0b'],
    ['a newline', 'refs/heads/a\nb'],
    ['@{', 'refs/heads/main@{1}'],
    ['~', 'refs/heads/main~1'],
    ['^', 'refs/heads/main^'],
    [':', 'refs/heads/a:b'],
    ['a space', 'refs/heads/a b'],
    ['a backslash', 'refs/heads/a\\b'],
    ['.lock', 'refs/heads/x.lock'],
    ['a dot-led component', 'refs/heads/.hidden'],
    ['a trailing slash', 'refs/heads/x/'],
    ['a double slash', 'refs/heads//x'],
    ['a trailing dot', 'refs/heads/x.'],
    ['no refs/ prefix', 'heads/main'],
    ['HEAD', 'HEAD'],
    ['absurd length', `refs/heads/${'x'.repeat(2000)}`],
    ['empty', ''],
  ])('when it contains %s, then INVALID_ARGUMENT', (_what, ref) => {
    expect(() => validateRefName(ref)).toThrow(expect.objectContaining({ kind: 'validation' }));
  });
});

describe('validateRevision', () => {
  it('when a full ref or 4-40 hex digits are given, then they pass', () => {
    expect(validateRevision('refs/tags/v1')).toBe('refs/tags/v1');
    expect(validateRevision('abcd')).toBe('abcd');
    expect(validateRevision('a'.repeat(40))).toBe('a'.repeat(40));
  });

  it.each(['main', 'HEAD', 'HEAD@{1}', 'main~1', 'main^', 'abc', 'ABCD', 'a'.repeat(41), '-n', '--all', 'refs/heads/x:README', 'abcd..ef01', `${'a'.repeat(40)}^{tree}`])(
    'when %s is given, then INVALID_ARGUMENT',
    (rev) => {
      expect(() => validateRevision(rev)).toThrow(expect.objectContaining({ kind: 'validation' }));
    },
  );
});

describe('validateOid and validateAbbrevOid', () => {
  it('when ids are well formed, then they pass; otherwise INVALID_ARGUMENT', () => {
    expect(validateOid('0123456789abcdef0123456789abcdef01234567')).toBe('0123456789abcdef0123456789abcdef01234567');
    expect(() => validateOid('abcd')).toThrow(expect.objectContaining({ kind: 'validation' }));
    expect(() => validateOid('-'.repeat(40))).toThrow(expect.objectContaining({ kind: 'validation' }));
    expect(validateAbbrevOid('abcd')).toBe('abcd');
    expect(() => validateAbbrevOid('abc')).toThrow(expect.objectContaining({ kind: 'validation' }));
    expect(() => validateAbbrevOid('--all')).toThrow(expect.objectContaining({ kind: 'validation' }));
  });
});

describe('validatePath', () => {
  it.each(['README.md', 'src/a b/c.txt', '-n', '--output=x', 'dir/-x', 'üñï/ç'])('when %s is given, then it passes (it only ever follows `:` or `--`)', (p) => {
    expect(validatePath(p)).toBe(p);
  });

  it('when empty is allowed, then the root passes; otherwise Path required', () => {
    expect(validatePath('', { allowEmpty: true })).toBe('');
    expect(() => validatePath('')).toThrow('Path required');
  });

  it.each([
    ['a leading slash', '/etc/passwd'],
    ['..', '../x'],
    ['.. inside', 'a/../../b'],
    ['a . segment', 'a/./b'],
    ['an empty segment', 'a//b'],
    ['a trailing slash', 'a/'],
    ['NUL', 'a\0b'],
    ['a newline', 'a\nb'],
    ['a carriage return', 'a\rb'],
    ['absurd length', long],
  ])('when it has %s, then INVALID_ARGUMENT', (_what, p) => {
    expect(() => validatePath(p)).toThrow(expect.objectContaining({ kind: 'validation' }));
  });

  it('when it has backslashes, then they are ordinary name bytes and the path passes unchanged', () => {
    expect(validatePath('a\\b.txt')).toBe('a\\b.txt');
    expect(validatePath('dir/a\\..\\b')).toBe('dir/a\\..\\b');
  });
});

describe('validateBranchName and validateRepositoryId', () => {
  it('when names are sane, then they pass; when not, INVALID_ARGUMENT', () => {
    expect(validateBranchName('feature/x')).toBe('feature/x');
    expect(() => validateBranchName('-x')).toThrow(expect.objectContaining({ kind: 'validation' }));
    expect(() => validateBranchName('a..b')).toThrow(expect.objectContaining({ kind: 'validation' }));
    expect(validateRepositoryId('0b7c1f8e-1111-4222-8333-944455556666')).toBe('0b7c1f8e-1111-4222-8333-944455556666');
    expect(() => validateRepositoryId('../../etc')).toThrow(expect.objectContaining({ kind: 'validation' }));
    expect(() => validateRepositoryId('')).toThrow(expect.objectContaining({ kind: 'validation' }));
  });
});

describe('validateCommitExpression (docs/decisions/gitea-api.md#revision-expressions)', () => {
  const id = '0123456789abcdef0123456789abcdef01234567';
  it('when an id, an abbreviated id or a qualified ref is followed by ancestry steps only, then it passes as it is', () => {
    for (const ok of [id, `${id}~3`, 'abcd^2', 'refs/heads/main~1^{}', 'refs/tags/v1.0^{commit}', `${id}^^~`]) expect(validateCommitExpression(ok)).toBe(ok);
  });

  it.each(['', 'main~1', 'HEAD', '-h', `${id}@{1}`, `${id}:a.txt`, `${id}^{/fix}`, `${id}^{tree}`, `${id}..${id}`, `${id}^!`, `${id}^@`, `${id}~1234567`, `${id}${'~'.repeat(33)}`, 'abc~1', 'refs/heads/a..b~1'])(
    'when %s is given, then it is a validation error',
    (bad) => {
      expect(() => validateCommitExpression(bad)).toThrow(expect.objectContaining({ kind: 'validation' }));
    },
  );
});
