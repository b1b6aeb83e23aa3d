import { unavailable } from '@githost/errors';
import { callUnary, type GrpcMetrics } from '@githost/grpc';
import type { AccountsServiceClient, accounts } from '@githost/protos';
import { refPolicyOfMessage, type RefPolicy } from '@githost/ref-policy';
import type { PushedBranchAdopter } from '../events/first-push.js';

/** Where a repository's branch and tag protection comes from (accounts owns the rules). */
export interface RefPolicySource {
  /** The policy, or an `unavailable` AppError: a ref never moves on a policy nobody could read. */
  policyOf(repositoryId: string, requestId?: string): Promise<RefPolicy>;
  /** Starts the read the UpdateRef of the same request will take (ReadAheadRefPolicies). */
  readAhead?(repositoryId: string, requestId: string): void;
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

/** How long a read ahead waits for the UpdateRef that takes it: a merge's calls are milliseconds apart. */
export const READ_AHEAD_TTL_MS = 2_000;
const MAX_READS_AHEAD = 1_000;

/**
 * A merge has its target's rules read twice in one request: by merge-requests' gate, and by this
 * service's check of the UpdateRef that moves the target. ResolveMergeTips, the merge's first
 * call, starts the second read (`readAhead`), and the UpdateRef of the same request takes it
 * instead of waiting on a round trip to accounts (bench/RESULTS.md "Merge requests"). The rules
 * are still this request's own read, as the gate's are. A read ahead is taken once, never after
 * READ_AHEAD_TTL_MS, and one that failed is read again.
 */
export class ReadAheadRefPolicies implements RefPolicySource {
  private readonly ahead = new Map<string, { at: number; policy: Promise<RefPolicy> }>();

  constructor(
    private readonly source: RefPolicySource,
    private readonly now: () => number = Date.now,
  ) {}

  /** Reads ahead not taken yet. */
  get waiting(): number {
    return this.ahead.size;
  }

  readAhead(repositoryId: string, requestId: string): void {
    this.prune();
    const policy = this.source.policyOf(repositoryId, requestId);
    policy.catch(() => undefined); // read again by policyOf
    this.ahead.set(keyOf(repositoryId, requestId), { at: this.now(), policy });
  }

  policyOf(repositoryId: string, requestId?: string): Promise<RefPolicy> {
    const key = requestId ? keyOf(repositoryId, requestId) : undefined;
    const read = key === undefined ? undefined : this.ahead.get(key);
    if (!read) return this.source.policyOf(repositoryId, requestId);
    this.ahead.delete(key!);
    if (this.now() - read.at > READ_AHEAD_TTL_MS) return this.source.policyOf(repositoryId, requestId);
    return read.policy.catch(() => this.source.policyOf(repositoryId, requestId));
  }

  /** Reads ahead that no UpdateRef took (the merge stopped before its move) go once they are old. */
  private prune(): void {
    const cutoff = this.now() - READ_AHEAD_TTL_MS;
    for (const [key, read] of this.ahead) {
      if (read.at >= cutoff && this.ahead.size < MAX_READS_AHEAD) break;
      this.ahead.delete(key);
    }
  }
}

const keyOf = (repositoryId: string, requestId: string) => `${repositoryId}\n${requestId}`;

/** PushedBranchAdopter over accounts' AdoptPushedBranches. */
export class AccountsPushedBranches implements PushedBranchAdopter {
  constructor(
    private readonly client: AccountsServiceClient,
    private readonly metrics?: GrpcMetrics,
  ) {}

  async adopt(repositoryId: string, branches: string[], requestId?: string): Promise<void> {
    await callUnary<accounts.AdoptPushedBranchesRequest, accounts.AdoptPushedBranchesResponse__Output>(this.client, this.client.AdoptPushedBranches, { repository_id: repositoryId, branches }, { requestId, timeoutMs: 5_000, metrics: this.metrics });
  }
}
