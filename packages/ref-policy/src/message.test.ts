import { describe, expect, it } from '@jest/globals';
import { pushRestrictionOf, refPolicyOfMessage } from './index.js';

const rule = { pattern: 'release/*', allow_force_pushes: false, allow_deletions: true, required_approvals: 2, required_status_checks: ['ci/build', 'ci/test'], dismiss_stale_approvals: false, push: 'admin' };

describe('refPolicyOfMessage (accounts GetRefPolicy)', () => {
  it('when accounts answers a policy, then every field of every rule is kept, in order', () => {
    expect(refPolicyOfMessage({ default_branch: 'trunk', allow_tag_changes: true, protections: [rule, { ...rule, pattern: 'main', push: 'nobody' }] })).toEqual({
      default_branch: 'trunk',
      allow_tag_changes: true,
      protections: [rule, { ...rule, pattern: 'main', push: 'nobody' }],
    });
  });

  it('when a rule leaves push unset, then it is `write`; when it carries a value this version does not know, then it is `nobody`', () => {
    const policy = refPolicyOfMessage({ default_branch: 'main', allow_tag_changes: false, protections: [{ ...rule, push: '' }, { ...rule, pattern: 'b', push: 'root' }] });
    expect(policy.protections.map((p) => p.push)).toEqual(['write', 'nobody']);
    expect(['write', 'admin', 'nobody', 'Write', ' write'].map(pushRestrictionOf)).toEqual(['write', 'admin', 'nobody', 'nobody', 'nobody']);
  });
});
