import { describe, expect, it } from '@jest/globals';
import { refPolicyOf } from './ref-policies.js';

const rule = { pattern: 'main', allow_force_pushes: false, allow_deletions: true, required_approvals: 1, required_status_checks: ['ci'], dismiss_stale_approvals: true, push: 'admin' };

describe('refPolicyOf', () => {
  it('when accounts answers, then the policy keeps every field; an unset push restriction is `write`, an unknown one the strictest', () => {
    const policy = refPolicyOf({ default_branch: 'main', allow_tag_changes: true, protections: [rule, { ...rule, pattern: 'a', push: '' }, { ...rule, pattern: 'b', push: 'root' }] });
    expect(policy).toEqual({
      default_branch: 'main',
      allow_tag_changes: true,
      protections: [rule, { ...rule, pattern: 'a', push: 'write' }, { ...rule, pattern: 'b', push: 'nobody' }],
    });
  });
});
