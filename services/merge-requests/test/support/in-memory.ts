import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@githost/bus';
import type { ClaimResult, GitPort, MergeCompletion, MergeRequestStore, NewComment, NewMergeRequest, UpdateRefInput, UserDirectory, WriteMergeInput } from '../../src/domain/ports.js';
import type { Activity, Comment, Diff, MergeIntent, MergeRequest, MergeStrategy, UserRecord } from '../../src/domain/types.js';

/** In-memory ports for domain unit tests: the same contracts as the Postgres store and gRPC. */
export class MemoryStore implements MergeRequestStore {
  mrs: MergeRequest[] = [];
  comments: Comment[] = [];
  activity: (Activity & { repo_id: string })[] = [];
  intents = new Map<string, MergeIntent & { touched: number }>();
  outbox: EventEnvelope[] = [];
  private clock = 0;
  private tick = () => new Date(Date.UTC(2026, 0, 1) + ++this.clock * 1000).toISOString();

  async create(input: NewMergeRequest): Promise<MergeRequest> {
    const number = Math.max(0, ...this.mrs.filter((m) => m.repo_id === input.repo_id).map((m) => m.number)) + 1;
    const at = this.tick();
    const mr: MergeRequest = { id: randomUUID(), number, state: 'open', merged_sha: null, merged_by: null, created_at: at, updated_at: at, ...input };
    this.mrs.push(mr);
    this.activity.push({ id: randomUUID(), repo_id: input.repo_id, action: 'create_mr', user_id: input.author_id, data: { mr_number: number, mr_title: input.title }, created_at: at });
    return { ...mr };
  }
  async list(repoId: string, state: string, limit: number) {
    return this.mrs.filter((m) => m.repo_id === repoId && m.state === state).sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, limit);
  }
  async findByNumber(repoId: string, number: number) {
    return this.mrs.find((m) => m.repo_id === repoId && m.number === number) ?? null;
  }
  async findById(id: string) {
    return this.mrs.find((m) => m.id === id) ?? null;
  }
  async listComments(mrId: string) {
    return this.comments.filter((c) => c.mr_id === mrId);
  }
  async addComment(input: NewComment): Promise<Comment> {
    const c = { id: randomUUID(), created_at: this.tick(), ...input };
    this.comments.push(c);
    return c;
  }
  async listActivity(repoId: string, limit: number) {
    return this.activity
      .filter((a) => a.repo_id === repoId)
      .reverse()
      .slice(0, limit)
      .map(({ repo_id: _r, ...a }) => a);
  }
  async claimMerge(intent: Pick<MergeIntent, 'mr_id' | 'repo' | 'merger_id' | 'request_id'>): Promise<ClaimResult> {
    const mr = await this.findById(intent.mr_id);
    if (!mr || mr.state !== 'open' || this.intents.has(intent.mr_id)) return 'not_open';
    this.intents.set(intent.mr_id, { ...intent, target_ref: null, old_oid: null, new_oid: null, strategy: null, touched: Date.now() });
    return 'claimed';
  }
  async planMerge(mrId: string, plan: { target_ref: string; old_oid: string; new_oid: string; strategy: MergeStrategy }) {
    const i = this.intents.get(mrId);
    if (i) Object.assign(i, plan, { touched: Date.now() });
    return i !== undefined;
  }
  async releaseMerge(mrId: string) {
    this.intents.delete(mrId);
  }
  async completeMerge(c: MergeCompletion) {
    const mr = await this.findById(c.mr_id);
    this.intents.delete(c.mr_id);
    if (!mr || mr.state !== 'open') return null;
    Object.assign(mr, { state: 'merged', merged_sha: c.merged_sha, merged_by: c.merged_by, updated_at: this.tick() });
    this.activity.push({ id: randomUUID(), repo_id: mr.repo_id, action: 'merge_mr', user_id: c.merged_by, data: { mr_number: mr.number, mr_title: mr.title, merged_sha: c.merged_sha }, created_at: mr.updated_at });
    this.outbox.push(c.event({ ...mr }));
    return { ...mr };
  }
  async staleIntents(olderThanMs: number) {
    return [...this.intents.values()].filter((i) => Date.now() - i.touched >= olderThanMs).map(({ touched: _t, ...i }) => i);
  }
}

/** A repository as refs plus a commit graph (child -> parents); enough for the merge rules. */
export class FakeGit implements GitPort {
  branches = new Map<string, string>();
  tags = new Map<string, string>();
  parents = new Map<string, string[]>();
  conflicts: string[] = [];
  diffResult: Diff = { files: [], truncated: false };
  written: WriteMergeInput[] = [];
  updates: UpdateRefInput[] = [];
  /** Runs just before an UpdateRef compare, to simulate a racing push. */
  beforeUpdate?: () => void;
  updateFailure?: Error;

  commit(oid: string, ...parents: string[]) {
    this.parents.set(oid, parents);
    return oid;
  }
  async resolveBranch(_repoId: string, branch: string) {
    return this.branches.get(branch) ?? null;
  }
  async resolveRevision(_repoId: string, revision: string) {
    if (revision.startsWith('refs/heads/')) return this.branches.get(revision.slice('refs/heads/'.length)) ?? null;
    if (revision.startsWith('refs/tags/')) return this.tags.get(revision.slice('refs/tags/'.length)) ?? null;
    return this.parents.has(revision) ? revision : null;
  }
  async isAncestor(_repoId: string, ancestor: string, descendant: string): Promise<boolean> {
    if (ancestor === descendant) return true;
    return (this.parents.get(descendant) ?? []).some((p) => this.isAncestorSync(ancestor, p));
  }
  private isAncestorSync(a: string, d: string): boolean {
    return a === d || (this.parents.get(d) ?? []).some((p) => this.isAncestorSync(a, p));
  }
  async diff(): Promise<Diff> {
    return this.diffResult;
  }
  async checkMerge() {
    return { clean: this.conflicts.length === 0, conflicts: this.conflicts };
  }
  async writeMerge(_repoId: string, req: WriteMergeInput) {
    if (this.conflicts.length > 0) return { ok: false as const, conflicts: this.conflicts };
    this.written.push(req);
    const oid = `merge${this.written.length}`.padEnd(40, '0');
    this.commit(oid, req.ours, req.theirs);
    return { ok: true as const, oid };
  }
  async updateRef(_repoId: string, req: UpdateRefInput): Promise<'ok' | 'mismatch'> {
    this.beforeUpdate?.();
    if (this.updateFailure) throw this.updateFailure;
    const branch = req.ref.replace(/^refs\/heads\//, '');
    if (this.branches.get(branch) !== req.oldOid) return 'mismatch';
    this.branches.set(branch, req.newOid);
    this.updates.push(req);
    return 'ok';
  }
}

export class FakeUsers implements UserDirectory {
  constructor(public users: UserRecord[] = []) {}
  async getUsers(ids: string[]) {
    return new Map(this.users.filter((u) => ids.includes(u.id)).map((u) => [u.id, u] as const));
  }
}
