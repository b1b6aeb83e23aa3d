import { describe, expect, it } from '@jest/globals';
import { protectionFor, refusalOf, validateBranchPattern, matchesPattern, RULE_DEFAULTS, type RefPolicy } from './index.js';
import { ZERO_OID } from '@githost/git-records/object-id';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const writer = { permission: 'write', via: 'push' } as const;
const owner = { permission: 'admin', via: 'push' } as const;
const merge = { permission: 'write', via: 'merge' } as const;
const policy = (over: Partial<RefPolicy> = {}): RefPolicy => ({ default_branch: 'main', allow_tag_changes: false, protections: [], ...over });
const rule = (pattern: string, over = {}) => ({ pattern, ...RULE_DEFAULTS, ...over });

describe('refusalOf', () => {
  it('when no rule exists, then the default branch refuses force pushes and deletion and others allow both', () => {
    expect(refusalOf(policy(), { ref: 'refs/heads/main', before: A, after: B, forced: true }, writer)).toBe('protected branch main: force push not allowed');
    expect(refusalOf(policy(), { ref: 'refs/heads/main', before: A, after: ZERO_OID, forced: false }, writer)).toBe('protected branch main: deletion not allowed');
    expect(refusalOf(policy(), { ref: 'refs/heads/main', before: A, after: B, forced: false }, writer)).toBeNull();
    expect(refusalOf(policy(), { ref: 'refs/heads/feature', before: A, after: B, forced: true }, writer)).toBeNull();
    expect(refusalOf(policy(), { ref: 'refs/heads/feature', before: A, after: ZERO_OID, forced: false }, writer)).toBeNull();
  });
  it('when a tag exists, then moving or deleting it is refused unless tag changes are allowed; creating one is free', () => {
    expect(refusalOf(policy(), { ref: 'refs/tags/v1', before: ZERO_OID, after: A, forced: false }, writer)).toBeNull();
    expect(refusalOf(policy(), { ref: 'refs/tags/v1', before: A, after: B, forced: true }, writer)).toBe('tag v1: moving an existing tag not allowed');
    expect(refusalOf(policy(), { ref: 'refs/tags/v1', before: A, after: ZERO_OID, forced: false }, writer)).toBe('tag v1: deletion not allowed');
    expect(refusalOf(policy({ allow_tag_changes: true }), { ref: 'refs/tags/v1', before: A, after: B, forced: true }, writer)).toBeNull();
  });
  it('when a new branch or tag is named -x, --output=x, a/-b, HEAD, in NFD or not UTF-8, then it is refused naming the rule', () => {
    const create = (ref: string) => refusalOf(policy(), { ref, before: ZERO_OID, after: A, forced: false }, owner);
    expect(create('refs/heads/-dash')).toBe("branch -dash: not a valid name, it starts with '-'");
    expect(create('refs/heads/--output=x')).toBe("branch --output=x: not a valid name, it starts with '-'");
    expect(create('refs/heads/feature/-x')).toBe("branch feature/-x: not a valid name, a component starts with '.' or '-' or ends with '.lock'");
    expect(create('refs/heads/HEAD')).toBe('branch HEAD: not a valid name, it is HEAD, which git and the API read as the default branch');
    expect(create('refs/tags/HEAD')).toBe('tag HEAD: not a valid name, it is HEAD, which git and the API read as the default branch');
    expect(create('refs/tags/-v1')).toBe("tag -v1: not a valid name, it starts with '-'");
    expect(create('refs/heads/cafe\u0301')).toBe('branch cafe\u0301: not a valid name, it is not in Unicode normalization form C (NFC; composed characters, as macOS git and browsers send them)');
    expect(create('refs/heads/caf\ufffd')).toBe('branch caf\ufffd: not a valid name, it is not valid UTF-8');
    for (const fine of ['refs/heads/caf\u00e9', 'refs/heads/feature-x', 'refs/heads/head', 'refs/heads/x/HEAD', 'refs/tags/v1.0-rc']) expect(create(fine)).toBeNull();
  });

  it('when a branch with such a name exists already, then it can still be moved and deleted', () => {
    expect(refusalOf(policy(), { ref: 'refs/heads/-dash', before: A, after: B, forced: true }, writer)).toBeNull();
    expect(refusalOf(policy(), { ref: 'refs/heads/HEAD', before: A, after: ZERO_OID, forced: false }, writer)).toBeNull();
    expect(refusalOf(policy(), { ref: 'refs/heads/cafe\u0301', before: A, after: ZERO_OID, forced: false }, writer)).toBeNull();
  });

  it('when a ref is outside refs/heads/ and refs/tags/, then it is refused', () => {
    expect(refusalOf(policy(), { ref: 'refs/meta/x', before: ZERO_OID, after: A, forced: false }, owner)).toBe('refs/meta/x: only refs/heads/ and refs/tags/ can be pushed');
  });
  it('when a rule restricts pushes, then writers or everyone are refused on push but not on merge', () => {
    const admins = policy({ protections: [rule('release/*', { push: 'admin' })] });
    const change = { ref: 'refs/heads/release/1.0', before: A, after: B, forced: false };
    expect(refusalOf(admins, change, writer)).toBe('protected branch release/1.0: only the repository owner and site admins may push');
    expect(refusalOf(admins, change, owner)).toBeNull();
    const nobody = policy({ protections: [rule('main', { push: 'nobody' })] });
    expect(refusalOf(nobody, { ...change, ref: 'refs/heads/main' }, owner)).toBe('protected branch main: direct pushes not allowed, use a merge request');
    expect(refusalOf(nobody, { ...change, ref: 'refs/heads/main' }, merge)).toBeNull();
  });
  it('when a rule allows force pushes and deletions, then the default branch takes it instead of the default', () => {
    const p = policy({ protections: [rule('main', { allow_force_pushes: true, allow_deletions: true })] });
    expect(refusalOf(p, { ref: 'refs/heads/main', before: A, after: B, forced: true }, writer)).toBeNull();
    expect(refusalOf(p, { ref: 'refs/heads/main', before: A, after: ZERO_OID, forced: false }, merge)).toBeNull();
  });
});

describe('protectionFor', () => {
  it('when an exact rule and globs match, then the exact rule wins, else the longest glob', () => {
    const p = policy({ protections: [rule('**', { required_approvals: 1 }), rule('release/*', { required_approvals: 2 }), rule('release/1.0', { required_approvals: 3 })] });
    expect(protectionFor(p, 'release/1.0')?.required_approvals).toBe(3);
    expect(protectionFor(p, 'release/2.0')?.required_approvals).toBe(2);
    expect(protectionFor(p, 'feature/a/b')?.required_approvals).toBe(1);
  });
  it('when no rule matches, then only the default branch has the default protection', () => {
    expect(protectionFor(policy(), 'main')).toEqual(rule('main'));
    expect(protectionFor(policy(), 'dev')).toBeNull();
  });
});

describe('branch patterns', () => {
  it('when a glob is matched, then * stays within a segment and ** crosses them', () => {
    expect(matchesPattern('release/*', 'release/1.0')).toBe(true);
    expect(matchesPattern('release/*', 'release/1/x')).toBe(false);
    expect(matchesPattern('release/**', 'release/1/x')).toBe(true);
    expect(matchesPattern('feat-*', 'feat-x')).toBe(true);
    expect(matchesPattern('main', 'main2')).toBe(false);
  });
  it('when a pattern is not a valid ref glob, then it is refused', () => {
    for (const bad of ['', 'a..b', '-x', 'a b', 'a?', 'a[b]', 'a\\b', 'x.lock', '/a', 'a/', 'a//b', 'refs/heads/x', 'a**b', '@', 'a@{1}', 'a:b']) {
      expect(() => validateBranchPattern(bad)).toThrow(/Branch pattern is required|Invalid branch pattern/);
    }
    for (const good of ['main', 'release/*', 'release/**', 'feat-*', '**', 'v1.0']) expect(validateBranchPattern(good)).toBe(good);
  });
});
