/** Who may push directly to a protected branch: writers, only the owner and site admins
 *  (`admin` permission), or nobody (changes only through merge requests). */
export type PushRestriction = 'write' | 'admin' | 'nobody';
export const PUSH_RESTRICTIONS: readonly PushRestriction[] = ['write', 'admin', 'nobody'];

/** One branch protection rule (README "Branch and tag protection"). */
export interface BranchProtection {
  pattern: string;
  allow_force_pushes: boolean;
  allow_deletions: boolean;
  required_approvals: number;
  required_status_checks: string[];
  dismiss_stale_approvals: boolean;
  push: PushRestriction;
}

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
