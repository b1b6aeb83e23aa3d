import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@githost/bus';
import { RULE_DEFAULTS, type BranchProtection, type RefPolicy } from '@githost/ref-policy';
import type { NewReview, NewStatus, RefPolicySource, ReviewRequest, ReviewRequestStore, ReviewStore, StatusStore, WorkflowPorts } from '../../src/domain/ports.js';
import type { CommitStatus, Review } from '../../src/domain/types.js';

/** In-memory reviews, statuses and ref policy: the same contracts as the Postgres stores and accounts. */
export class MemoryReviews implements ReviewStore, ReviewRequestStore {
  reviews: Review[] = [];
  requests: ReviewRequest[] = [];
  outbox: EventEnvelope[] = [];
  private clock = 0;

  async addReview(input: NewReview, event: (review: Review) => EventEnvelope): Promise<Review> {
    const review: Review = { id: randomUUID(), created_at: new Date(Date.UTC(2026, 0, 2) + ++this.clock * 1000).toISOString(), ...input };
    this.reviews.push(review);
    this.requests = this.requests.filter((q) => !(q.mr_id === input.mr_id && q.reviewer_id === input.author_id));
    this.outbox.push(event(review));
    return { ...review };
  }
  async listReviews(mrId: string): Promise<Review[]> {
    return this.reviews.filter((r) => r.mr_id === mrId);
  }
  async addRequests(mrId: string, reviewerIds: string[], requestedBy: string | null, max: number, events: (added: string[]) => EventEnvelope[]): Promise<'ok' | 'limit'> {
    const fresh = reviewerIds.filter((id) => !this.requests.some((q) => q.mr_id === mrId && q.reviewer_id === id));
    if (this.requests.filter((q) => q.mr_id === mrId).length + fresh.length > max) return 'limit';
    for (const id of fresh) this.requests.push({ mr_id: mrId, reviewer_id: id, requested_by: requestedBy, created_at: new Date(Date.UTC(2026, 0, 4) + ++this.clock * 1000).toISOString() });
    if (fresh.length > 0) this.outbox.push(...events(fresh));
    return 'ok';
  }
  async removeRequests(mrId: string, reviewerIds: string[], events: (removed: string[]) => EventEnvelope[]): Promise<void> {
    const removed = reviewerIds.filter((id) => this.requests.some((q) => q.mr_id === mrId && q.reviewer_id === id));
    this.requests = this.requests.filter((q) => !(q.mr_id === mrId && reviewerIds.includes(q.reviewer_id)));
    if (removed.length > 0) this.outbox.push(...events(removed));
  }
  async listRequests(mrIds: string[]): Promise<ReviewRequest[]> {
    return this.requests.filter((q) => mrIds.includes(q.mr_id));
  }
}

export class MemoryStatuses implements StatusStore {
  statuses: (CommitStatus & { repo_id: string })[] = [];
  outbox: EventEnvelope[] = [];
  private clock = 0;

  async addStatus(input: NewStatus, maxPerContext: number, event: (s: CommitStatus) => EventEnvelope): Promise<CommitStatus | 'limit'> {
    const same = this.statuses.filter((s) => s.repo_id === input.repo_id && s.sha === input.sha && s.context === input.context);
    if (same.length >= maxPerContext) return 'limit';
    const at = new Date(Date.UTC(2026, 0, 3) + ++this.clock * 1000).toISOString();
    const { repo_id, creator_id: _c, creator_username, ...rest } = input;
    const status: CommitStatus = { id: randomUUID(), ...rest, creator: { username: creator_username }, created_at: at, updated_at: at };
    this.statuses.push({ ...status, repo_id });
    this.outbox.push(event(status));
    return status;
  }
  async listStatuses(repoId: string, sha: string, page: { limit: number; offset: number }): Promise<CommitStatus[]> {
    return this.newest(repoId, sha).slice(page.offset, page.offset + page.limit);
  }
  async latestPerContext(repoId: string, sha: string): Promise<CommitStatus[]> {
    const seen = new Set<string>();
    return this.newest(repoId, sha).filter((s) => !seen.has(s.context) && seen.add(s.context));
  }
  private newest(repoId: string, sha: string): CommitStatus[] {
    return this.statuses
      .filter((s) => s.repo_id === repoId && s.sha === sha)
      .reverse()
      .map(({ repo_id: _r, ...s }) => s);
  }
}

export class FakePolicy implements RefPolicySource {
  policy: RefPolicy = { default_branch: 'main', allow_tag_changes: false, protections: [] };
  failure?: Error;

  /** Adds a rule for `pattern`, the unnamed fields at their defaults. */
  protect(pattern: string, rule: Partial<Omit<BranchProtection, 'pattern'>>): this {
    this.policy.protections.push({ pattern, ...RULE_DEFAULTS, ...rule });
    return this;
  }
  async getRefPolicy(): Promise<RefPolicy> {
    if (this.failure) throw this.failure;
    return structuredClone(this.policy);
  }
}

export function memoryWorkflow(): WorkflowPorts & { reviews: MemoryReviews; statuses: MemoryStatuses; policy: FakePolicy } {
  return { reviews: new MemoryReviews(), statuses: new MemoryStatuses(), policy: new FakePolicy() };
}
