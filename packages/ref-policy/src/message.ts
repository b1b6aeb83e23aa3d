import { PUSH_RESTRICTIONS, type BranchProtection, type PushRestriction, type RefPolicy } from './types.js';

/** A policy as accounts' GetRefPolicy answers it: the same fields, with `push` a free string
 *  (structurally the generated `accounts.GetRefPolicyResponse__Output`, without this package
 *  depending on the protos). */
export interface RefPolicyMessage {
  default_branch: string;
  allow_tag_changes: boolean;
  protections: ReadonlyArray<Omit<BranchProtection, 'push' | 'required_status_checks'> & { push: string; required_status_checks: readonly string[] }>;
}

/**
 * A `push` value as this version reads it. Unset (`''`, an accounts that predates the field) is
 * `write`, the rule's default; a value this version does not know is `nobody`, because reading it
 * any wider could let a push through that the rule's author meant to refuse.
 */
export function pushRestrictionOf(value: string): PushRestriction {
  if ((PUSH_RESTRICTIONS as readonly string[]).includes(value)) return value as PushRestriction;
  return value === '' ? 'write' : 'nobody';
}

/** accounts' GetRefPolicy answer as the policy every ref move is checked against. */
export function refPolicyOfMessage(res: RefPolicyMessage): RefPolicy {
  return {
    default_branch: res.default_branch,
    allow_tag_changes: res.allow_tag_changes,
    protections: res.protections.map((p) => ({
      pattern: p.pattern,
      allow_force_pushes: p.allow_force_pushes,
      allow_deletions: p.allow_deletions,
      required_approvals: p.required_approvals,
      required_status_checks: [...p.required_status_checks],
      dismiss_stale_approvals: p.dismiss_stale_approvals,
      push: pushRestrictionOf(p.push),
    })),
  };
}
