import { unavailable } from '@githost/errors';
import { callUnary, type GrpcMetrics } from '@githost/grpc';
import type { AccountsServiceClient, accounts } from '@githost/protos';
import { PUSH_RESTRICTIONS, type PushRestriction, type RefPolicy } from '@githost/ref-policy';

/** Where a repository's branch and tag protection comes from (accounts owns the rules). */
export interface RefPolicySource {
  /** The policy, or an `unavailable` AppError: a ref never moves on a policy nobody could read. */
  policyOf(repositoryId: string, requestId?: string): Promise<RefPolicy>;
}

/** The message a push or UpdateRef refused for want of a policy carries. */
export const POLICY_UNAVAILABLE = 'could not read the repository\'s protection rules; nothing was changed, try again';

/** RefPolicySource over accounts' GetRefPolicy. */
export class AccountsRefPolicies implements RefPolicySource {
  constructor(
    private readonly client: AccountsServiceClient,
    private readonly metrics?: GrpcMetrics,
  ) {}

  async policyOf(repositoryId: string, requestId?: string): Promise<RefPolicy> {
    let res: accounts.GetRefPolicyResponse__Output;
    try {
      res = await callUnary<accounts.GetRefPolicyRequest, accounts.GetRefPolicyResponse__Output>(this.client, this.client.GetRefPolicy, { repository_id: repositoryId }, { requestId, timeoutMs: 5_000, metrics: this.metrics });
    } catch (err) {
      throw unavailable(POLICY_UNAVAILABLE, err);
    }
    return refPolicyOf(res);
  }
}

/** The proto message as @githost/ref-policy's type; an unknown `push` value reads as the strictest. */
export function refPolicyOf(res: accounts.GetRefPolicyResponse__Output): RefPolicy {
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
      push: (PUSH_RESTRICTIONS as readonly string[]).includes(p.push) ? (p.push as PushRestriction) : p.push === '' ? 'write' : 'nobody',
    })),
  };
}
