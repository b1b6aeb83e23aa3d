import { describe, expect, it } from '@jest/globals';
import { toRefPolicy } from './ref-policy.js';

const rule = { pattern: 'release/*', allow_force_pushes: false, allow_deletions: true, required_approvals: 2, required_status_checks: ['ci/build', 'ci/test'], dismiss_stale_approvals: false, push: 'admin' };

describe('toRefPolicy (accounts GetRefPolicy)', () => {
  it('when accounts answers a policy, then every field of every rule is kept, in order', () => {
    expect(toRefPolicy({ default_branch: 'trunk', allow_tag_changes: true, protections: [rule, { ...rule, pattern: 'main', push: 'nobody' }] })).toEqual({
      default_branch: 'trunk',
      allow_tag_changes: true,
      protections: [rule, { ...rule, pattern: 'main', push: 'nobody' }],
    });
  });

  it('when a rule carries a push restriction this version does not know, then it reads as `write`', () => {
    expect(toRefPolicy({ default_branch: 'main', allow_tag_changes: false, protections: [{ ...rule, push: '' }] }).protections[0]!.push).toBe('write');
  });
});
