import { describe, expect, it } from '@jest/globals';
import { RULE_DEFAULTS, type BranchProtection, type RefPolicy } from '@githost/ref-policy';
import { deleteBranchProtection, getBranchProtection, listBranchProtections, MAX_RULES_PER_REPOSITORY, putBranchProtection, refPolicyOf } from './protections.js';
import { parseProtectionRule } from './protection-input.js';
import type { ProtectionStore, StoredProtection } from './ports.js';
import type { RepoAccess } from './repo-access.js';

const T = '2026-01-01T00:00:00.000Z';

/** Rules in memory for one repository `r1`, with the store's cap. */
function memoryStore(): ProtectionStore & { rules: Map<string, StoredProtection> } {
  const rules = new Map<string, StoredProtection>();
  return {
    rules,
    list: async (id) => (id === 'r1' ? [...rules.values()].sort((a, b) => (a.pattern < b.pattern ? -1 : 1)) : []),
    get: async (id, pattern) => (id === 'r1' ? (rules.get(pattern) ?? null) : null),
    async put(id, rule: BranchProtection, max) {
      if (id !== 'r1') return null;
      const created = !rules.has(rule.pattern);
      if (created && rules.size >= max) throw new Error('cap');
      const stored = { ...rule, created_at: T, updated_at: T };
      rules.set(rule.pattern, stored);
      return { rule: stored, created };
    },
    remove: async (id, pattern) => id === 'r1' && rules.delete(pattern),
    refPolicy: async (id): Promise<RefPolicy | null> =>
      id === 'r1' ? { default_branch: 'main', allow_tag_changes: false, protections: [...rules.values()].map(({ created_at: _c, updated_at: _u, ...r }) => r) } : null,
  };
}

const as = (permission: RepoAccess['permission']): RepoAccess => ({ id: 'r1', permission });

describe('parseProtectionRule', () => {
  it('when the body is empty, then every field takes its default', () => {
    expect(parseProtectionRule('main', {})).toEqual({ pattern: 'main', ...RULE_DEFAULTS });
    expect(parseProtectionRule('main', undefined)).toEqual({ pattern: 'main', ...RULE_DEFAULTS });
  });

  it('when every field is given, then they are kept and contexts are de-duplicated in order', () => {
    const body = { allow_force_pushes: true, allow_deletions: true, required_approvals: 2, required_status_checks: ['ci/build', 'lint', 'ci/build'], dismiss_stale_approvals: false, push: 'nobody' };
    expect(parseProtectionRule('release/*', body)).toEqual({
      pattern: 'release/*',
      allow_force_pushes: true,
      allow_deletions: true,
      required_approvals: 2,
      required_status_checks: ['ci/build', 'lint'],
      dismiss_stale_approvals: false,
      push: 'nobody',
    });
  });

  it.each([
    [[], 'Request body must be a JSON object'],
    ['x', 'Request body must be a JSON object'],
    [{ allow_force_pushes: 'yes' }, 'allow_force_pushes must be true or false'],
    [{ allow_deletions: 1 }, 'allow_deletions must be true or false'],
    [{ dismiss_stale_approvals: 'false' }, 'dismiss_stale_approvals must be true or false'],
    [{ required_approvals: 1.5 }, 'required_approvals must be an integer from 0 to 10'],
    [{ required_approvals: -1 }, 'required_approvals must be an integer from 0 to 10'],
    [{ required_approvals: 11 }, 'required_approvals must be an integer from 0 to 10'],
    [{ required_approvals: '1' }, 'required_approvals must be an integer from 0 to 10'],
    [{ required_status_checks: 'ci' }, 'required_status_checks must be an array of non-empty strings of at most 255 characters'],
    [{ required_status_checks: [''] }, 'required_status_checks must be an array of non-empty strings of at most 255 characters'],
    [{ required_status_checks: ['  '] }, 'required_status_checks must be an array of non-empty strings of at most 255 characters'],
    [{ required_status_checks: [3] }, 'required_status_checks must be an array of non-empty strings of at most 255 characters'],
    [{ required_status_checks: ['x'.repeat(256)] }, 'required_status_checks must be an array of non-empty strings of at most 255 characters'],
    [{ required_status_checks: Array.from({ length: 101 }, (_, i) => `c${i}`) }, 'required_status_checks must have at most 100 contexts'],
    [{ push: 'maintain' }, 'push must be "write", "admin" or "nobody"'],
    [{ push: true }, 'push must be "write", "admin" or "nobody"'],
  ])('when the body is %j, then it is refused with %s', (body, message) => {
    expect(() => parseProtectionRule('main', body)).toThrow(message);
  });

  it('when 100 distinct contexts are given, or 150 with duplicates, then they are accepted', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `c${i}`);
    expect(parseProtectionRule('main', { required_status_checks: [...hundred, ...hundred.slice(0, 50)] }).required_status_checks).toEqual(hundred);
  });

  it('when the pattern is not a valid ref glob, then it is refused before the body is read', () => {
    expect(() => parseProtectionRule('a..b', { push: 'bad' })).toThrow('Invalid branch pattern: "a..b" (a branch name, * and ** allowed)');
  });
});

describe('branch protections', () => {
  it('when the owner puts a rule twice, then the first creates and the second replaces it whole', async () => {
    const store = memoryStore();
    const deps = { protections: store };
    expect((await putBranchProtection(deps, as('admin'), 'main', { required_approvals: 2, push: 'admin' })).created).toBe(true);
    const again = await putBranchProtection(deps, as('admin'), 'main', { allow_deletions: true });
    expect(again.created).toBe(false);
    expect(again.rule).toEqual({ pattern: 'main', ...RULE_DEFAULTS, allow_deletions: true, created_at: T, updated_at: T });
  });

  it('when a writer or reader manages rules, then 403; when the caller cannot read, then 404', async () => {
    const deps = { protections: memoryStore() };
    for (const permission of ['write', 'read'] as const) {
      await expect(putBranchProtection(deps, as(permission), 'main', {})).rejects.toMatchObject({ kind: 'forbidden', message: 'Forbidden' });
      await expect(deleteBranchProtection(deps, as(permission), 'main')).rejects.toMatchObject({ kind: 'forbidden', message: 'Forbidden' });
    }
    await expect(putBranchProtection(deps, as('none'), 'main', {})).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
    await expect(listBranchProtections(deps, as('none'))).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
    await expect(listBranchProtections(deps, null)).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
  });

  it('when a reader lists or gets rules, then they are shown', async () => {
    const store = memoryStore();
    const deps = { protections: store };
    await putBranchProtection(deps, as('admin'), 'release/*', { push: 'nobody' });
    expect((await listBranchProtections(deps, as('read'))).map((r) => r.pattern)).toEqual(['release/*']);
    expect((await getBranchProtection(deps, as('read'), 'release/*')).push).toBe('nobody');
  });

  it('when a rule is absent, then get and delete answer 404 naming the pattern', async () => {
    const deps = { protections: memoryStore() };
    await expect(getBranchProtection(deps, as('admin'), 'dev')).rejects.toMatchObject({ kind: 'not_found', message: 'Branch protection not found: dev' });
    await expect(deleteBranchProtection(deps, as('admin'), 'dev')).rejects.toMatchObject({ kind: 'not_found', message: 'Branch protection not found: dev' });
  });

  it('when the repository disappeared before the rule was written, then 404 Repository not found', async () => {
    const deps = { protections: memoryStore() };
    await expect(putBranchProtection(deps, { id: 'gone', permission: 'admin' }, 'main', {})).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
  });

  it('when the ref policy is asked for, then it carries the rules; an unknown repository is 404', async () => {
    const deps = { protections: memoryStore() };
    await putBranchProtection(deps, as('admin'), 'main', { required_status_checks: ['ci'] });
    expect(await refPolicyOf(deps, 'r1')).toEqual({ default_branch: 'main', allow_tag_changes: false, protections: [{ pattern: 'main', ...RULE_DEFAULTS, required_status_checks: ['ci'] }] });
    await expect(refPolicyOf(deps, 'nope')).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
    await expect(refPolicyOf(deps, '')).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
  });

  it('when the cap is asked for, then it is the documented 100', () => {
    expect(MAX_RULES_PER_REPOSITORY).toBe(100);
  });
});
