import { callUnary, type GrpcMetrics } from '@githost/grpc';
import type { AccountsServiceClient, accounts } from '@githost/protos';
import { PUSH_RESTRICTIONS, type PushRestriction, type RefPolicy } from '@githost/ref-policy';
import type { RefPolicySource } from '../domain/workflow-ports.js';

/** RefPolicySource over accounts' GetRefPolicy, asked on every use: a rule changed by the owner
 *  governs the very next merge. */
export class AccountsRefPolicySource implements RefPolicySource {
  constructor(
    private readonly client: AccountsServiceClient,
    private readonly metrics?: GrpcMetrics,
  ) {}

  async getRefPolicy(repoId: string): Promise<RefPolicy> {
    const res = await callUnary<accounts.GetRefPolicyRequest, accounts.GetRefPolicyResponse__Output>(
      this.client,
      this.client.GetRefPolicy,
      { repository_id: repoId },
      { timeoutMs: 10_000, metrics: this.metrics },
    );
    return toRefPolicy(res);
  }
}

/** The proto's policy as @githost/ref-policy types it; a `push` value this version does not know
 *  reads as `write`, which only concerns direct pushes, never a merge. */
export function toRefPolicy(res: accounts.GetRefPolicyResponse__Output): RefPolicy {
  return {
    default_branch: res.default_branch,
    allow_tag_changes: res.allow_tag_changes,
    protections: res.protections.map((p) => ({
      pattern: p.pattern,
      allow_force_pushes: p.allow_force_pushes,
      allow_deletions: p.allow_deletions,
      required_approvals: p.required_approvals,
      required_status_checks: p.required_status_checks,
      dismiss_stale_approvals: p.dismiss_stale_approvals,
      push: (PUSH_RESTRICTIONS as readonly string[]).includes(p.push) ? (p.push as PushRestriction) : 'write',
    })),
  };
}
