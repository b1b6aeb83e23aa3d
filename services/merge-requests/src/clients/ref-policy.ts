import { callUnary, type GrpcMetrics } from '@githost/grpc';
import type { AccountsServiceClient, accounts } from '@githost/protos';
import { refPolicyOfMessage, type RefPolicy } from '@githost/ref-policy';
import type { RefPolicySource } from '../domain/ports.js';

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
    return refPolicyOfMessage(res);
  }
}
