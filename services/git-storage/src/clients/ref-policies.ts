import { unavailable } from '@githost/errors';
import { callUnary, type GrpcMetrics } from '@githost/grpc';
import type { AccountsServiceClient, accounts } from '@githost/protos';
import { refPolicyOfMessage, type RefPolicy } from '@githost/ref-policy';

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
    return refPolicyOfMessage(res);
  }
}
