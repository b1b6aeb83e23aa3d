import type { BranchProtection as BranchProtectionAnswer } from '@githost/api-types';

/**
 * One branch protection rule: the API's `BranchProtection` schema (openapi/openapi.yaml, generated
 * into @githost/api-types) without its timestamps, so the rule is written down once
 * (docs/decisions/branch-protection-one-source.md). accounts.proto carries the same fields on the
 * wire; branch-protection-fields.test.ts pins them to these.
 */
export type BranchProtection = Omit<BranchProtectionAnswer, 'created_at' | 'updated_at'>;

/** Who may push directly to a protected branch: writers, only the owner and site admins
 *  (`admin` permission), or nobody (changes only through merge requests). */
export type PushRestriction = BranchProtection['push'];
export const PUSH_RESTRICTIONS: readonly PushRestriction[] = ['write', 'admin', 'nobody'];

/** Everything that governs ref changes in one repository (accounts GetRefPolicy). */
export interface RefPolicy {
  default_branch: string;
  allow_tag_changes: boolean;
  protections: BranchProtection[];
}

/** The defaults of a rule's fields when a PUT leaves them out. */
export const RULE_DEFAULTS: Omit<BranchProtection, 'pattern'> = {
  allow_force_pushes: false,
  allow_deletions: false,
  required_approvals: 0,
  required_status_checks: [],
  dismiss_stale_approvals: true,
  push: 'write',
};
