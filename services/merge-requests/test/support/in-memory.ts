import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@githost/bus';
import { conflict } from '@githost/errors';
import type { ClaimResult, EventOf, GitPort, KeysetPage, MergeCompletion, MergePlan, MergeRequestChange, MergeRequestStore, NewComment, NewMergeRequest, PageRequest, UpdateRefInput, UserDirectory, WriteMergeInput } from '../../src/domain/ports.js';
import type { Activity, CommitRecord, Comment, Comparison, Diff, MergeIntent, MergeRequest, UserRecord } from '../../src/domain/types.js';

/** In-memory ports for domain unit tests: the same contracts as the Postgres store and gRPC. */
export class MemoryStore implements MergeRequestStore {
  mrs: MergeRequest[] = [];
  comments: Comment[] = [];
  activity: (Activity & { repo_id: string })[] = [];
  intents = new Map<string, MergeIntent & { touched: number }>();
  outbox: EventEnvelope[] = [];
  handled = new Set<string>();
  shards = new Map<string, string>();
  /** Every (repository, branch) the push consumer looked up. */
  branchLookups: Array<[string, string]> = [];
  private clock = 0;
  private tick = () => new Date(Date.UTC(2026, 0, 1) + ++this.clock * 1000).toISOString();

  async create(input: NewMergeRequest, opts: { shard?: string; event?: EventOf<MergeRequest> } = {}): Promise<MergeRequest> {
    const number = Math.max(0, ...this.mrs.filter((m) => m.repo_id === input.repo_id).map((m) => m.number)) + 1;
    const at = this.tick();
    const mr: MergeRequest = { id: randomUUID(), number, state: 'open', merged_sha: null, merged_by: null, created_at: at, updated_at: at, head_sha: input.source_sha, ...input };
    this.mrs.push(mr);
    this.shards.set(input.repo_id, opts.shard ?? 'default');
    this.activity.push({ id: randomUUID(), repo_id: input.repo_id, action: 'create_mr', user_id: input.author_id, data: { mr_number: number, mr_title: input.title }, created_at: at });
    if (opts.event) this.outbox.push(opts.event({ ...mr }));
    return { ...mr };
  }
  async list(repoId: string, state: string, limit: number) {
    return this.mrs.filter((m) => m.repo_id === repoId && m.state === state).sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, limit);
  }
  async listPage(repoId: string, state: string, page: PageRequest) {
    const rows = this.mrs.filter((m) => m.repo_id === repoId && m.state === state);
    return memoryPage(rows, (m) => [Date.parse(m.created_at) * 1000, m.number], page);
  }
  async activityPage(repoId: string, page: PageRequest) {
    const rows = this.activity.map((a, i) => ({ a, i })).filter(({ a }) => a.repo_id === repoId);
    const found = memoryPage(rows, ({ a, i }) => [Date.parse(a.created_at) * 1000, i], page);
    return { ...found, rows: found.rows.map(({ a: { repo_id: _r, ...a } }) => a) };
  }
  async findByNumber(repoId: string, number: number) {
    return this.mrs.find((m) => m.repo_id === repoId && m.number === number) ?? null;
  }
  async countByState(repoId: string, state: string) {
    return this.mrs.filter((m) => m.repo_id === repoId && m.state === state).length;
  }
  async findByNumbers(repoId: string, numbers: number[]) {
    return this.mrs.filter((m) => m.repo_id === repoId && numbers.includes(m.number));
  }
  async findById(id: string) {
    return this.mrs.find((m) => m.id === id) ?? null;
  }
  async listComments(mrId: string) {
    return this.comments.filter((c) => c.mr_id === mrId);
  }
  async addComment(input: NewComment, event?: EventOf<Comment>): Promise<Comment> {
    const c = { id: randomUUID(), created_at: this.tick(), ...input };
    this.comments.push(c);
    if (event) this.outbox.push(event(c));
    return c;
  }
  async listActivity(repoId: string, limit: number) {
    return this.activity
      .filter((a) => a.repo_id === repoId)
      .reverse()
      .slice(0, limit)
      .map(({ repo_id: _r, ...a }) => a);
  }
  /** Intents left to recovery (no longer refreshed by this process). */
  leftForRecovery = new Set<string>();
  async leaveForRecovery(mrId: string, _requestId: string | null): Promise<void> {
    this.leftForRecovery.add(mrId);
  }
  async claimMerge(intent: Pick<MergeIntent, 'mr_id' | 'repo' | 'merger_id' | 'request_id'> & { plan?: MergePlan }): Promise<ClaimResult> {
    const mr = await this.findById(intent.mr_id);
    if (!mr || mr.state !== 'open' || this.intents.has(intent.mr_id)) return 'not_open';
    const { plan, ...claim } = intent;
    this.intents.set(intent.mr_id, { ...claim, target_ref: null, old_oid: null, new_oid: null, strategy: null, ...plan, touched: Date.now() });
    return 'claimed';
  }
  async releaseMerge(mrId: string) {
    this.intents.delete(mrId);
  }
  async completeMergeOnMove(c: MergeCompletion, moved: Promise<boolean>) {
    if (!(await moved)) return 'not_moved' as const;
    return this.completeMerge(c);
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

  /** Checks every change first, then applies them all: the same all-or-nothing as a transaction. */
  private applyAll(changes: MergeRequestChange[]): Array<MergeRequest | null> {
    const targets = changes.map((c) => {
      const mr = this.mrs.find((m) => m.id === c.mr_id);
      if (!mr || mr.state !== c.from_state) return null;
      if (c.unless_merging && this.intents.has(mr.id)) throw conflict('A merge of this merge request is in progress; retry shortly');
      return mr;
    });
    return changes.map((c, i) => {
      const mr = targets[i];
      if (!mr) return null;
      const set = Object.entries(c.set).filter(([, v]) => v !== undefined);
      const at = set.length > 0 ? this.tick() : mr.updated_at;
      Object.assign(mr, Object.fromEntries(set), { updated_at: at });
      for (const a of c.activities) this.activity.push({ id: randomUUID(), repo_id: mr.repo_id, created_at: at, ...a });
      this.outbox.push(...c.events({ ...mr }));
      return { ...mr };
    });
  }
  async applyChange(change: MergeRequestChange) {
    return this.applyAll([change])[0]!;
  }
  async applyEvent(eventId: string, _repoId: string, changes: MergeRequestChange[]) {
    if (this.handled.has(eventId)) return false;
    this.applyAll(changes);
    this.handled.add(eventId);
    return true;
  }
  async wasHandled(eventId: string) {
    return this.handled.has(eventId);
  }
  async openOnBranch(repoId: string, branch: string) {
    this.branchLookups.push([repoId, branch]);
    return this.mrs
      .filter((m) => m.repo_id === repoId && m.state === 'open' && (m.source_branch === branch || m.target_branch === branch))
      .sort((a, b) => a.number - b.number)
      .map((m) => ({ ...m }));
  }
  async isMergeResult(repoId: string, branch: string, sha: string) {
    return this.mrs.some((m) => m.repo_id === repoId && m.target_branch === branch && m.state === 'merged' && m.merged_sha === sha);
  }
  async shardOf(repoId: string) {
    return this.shards.get(repoId) ?? null;
  }
  async deleteRepository(repoId: string) {
    const ids = new Set(this.mrs.filter((m) => m.repo_id === repoId).map((m) => m.id));
    this.comments = this.comments.filter((c) => !ids.has(c.mr_id));
    for (const id of ids) this.intents.delete(id);
    this.mrs = this.mrs.filter((m) => m.repo_id !== repoId);
    this.activity = this.activity.filter((a) => a.repo_id !== repoId);
  }
}

/** A repository as refs plus a commit graph (child -> parents); enough for the merge rules. */
export class FakeGit implements GitPort {
  branches = new Map<string, string>();
  tags = new Map<string, string>();
  parents = new Map<string, string[]>();
  conflicts: string[] = [];
  /** Commit messages for compare(); a commit without one gets `commit <oid>`. */
  messages = new Map<string, string>();
  /** Set to make compare() fail (e.g. an `unavailable` git-storage). */
  compareFailure?: Error;
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
  async branchTips() {
    return new Map(this.branches);
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
  /** As git-storage's client answers it: both tips, then ancestry when both exist. */
  async mergeTips(repoId: string, source: string, target: string) {
    const [s, t] = await Promise.all([this.resolveBranch(repoId, source), this.resolveBranch(repoId, target)]);
    return { source: s, target: t, targetInSource: s !== null && t !== null && (s === t || (await this.isAncestor(repoId, t, s))) };
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
    const oid = `${this.written.length}`.padStart(40, 'f');
    if (req.squash) this.commit(oid, req.ours);
    else this.commit(oid, req.ours, req.theirs);
    return { ok: true as const, oid };
  }
  /** Commits reachable from head and not from base, oldest first (parents before children). */
  async compare(_repoId: string, base: string, head: string, maxCommits: number): Promise<Comparison> {
    if (this.compareFailure) throw this.compareFailure;
    const reachable = (tip: string, seen = new Set<string>()): Set<string> => {
      if (!seen.has(tip)) {
        seen.add(tip);
        for (const p of this.parents.get(tip) ?? []) reachable(p, seen);
      }
      return seen;
    };
    const fromBase = reachable(base);
    const order: string[] = [];
    const visit = (oid: string, done = new Set<string>()) => {
      if (done.has(oid) || fromBase.has(oid)) return;
      done.add(oid);
      for (const p of this.parents.get(oid) ?? []) visit(p, done);
      order.push(oid);
    };
    const seen = new Set<string>();
    visit(head, seen);
    const behind = [...fromBase].filter((o) => !reachable(head).has(o)).length;
    return { merge_base: null, ahead_by: order.length, behind_by: behind, commits: order.slice(0, maxCommits).map((oid) => this.record(oid)) };
  }
  private record(oid: string): CommitRecord {
    const who = { name: 'dev', email: 'dev@example.com', date: '2026-01-01T00:00:00+00:00' };
    return { sha: oid, tree: 't'.repeat(40), parents: this.parents.get(oid) ?? [], author: who, committer: who, message: this.messages.get(oid) ?? `commit ${oid}\n` };
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

/** The commits most domain tests start from: main at BASE and feature one commit ahead at SRC
 *  (hex, so a status can be posted on them). */
export const BASE = 'b'.repeat(40);
export const SRC = 'e'.repeat(40);

/** A FakeGit holding BASE and SRC, main at BASE and feature at SRC. */
export function gitWithFeature(): FakeGit {
  const git = new FakeGit();
  git.commit(BASE);
  git.commit(SRC, BASE);
  git.branches.set('main', BASE).set('feature', SRC);
  return git;
}

export class FakeUsers implements UserDirectory {
  constructor(public users: UserRecord[] = []) {}
  async getUsers(ids: string[]) {
    return new Map(this.users.filter((u) => ids.includes(u.id)).map((u) => [u.id, u] as const));
  }
  async getUsersByName(usernames: string[]) {
    return new Map(this.users.filter((u) => usernames.includes(u.username)).map((u) => [u.username, u] as const));
  }
}

/** The keyset page @githost/db's keysetPage answers, over an array (the same contract). */
export function memoryPage<T>(items: T[], keyOf: (t: T) => [number, number], page: PageRequest): KeysetPage<T> {
  const cmp = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];
  const newestFirst = [...items].sort((a, b) => cmp(keyOf(b), keyOf(a)));
  const key = (t: T) => ({ at: String(keyOf(t)[0]), tie: String(keyOf(t)[1]) });
  const start = page.start;
  const k = start.kind === 'older' || start.kind === 'newer' ? ([Number(start.key.at), Number(start.key.tie)] as [number, number]) : null;
  let from = 0;
  let to = newestFirst.length;
  if (start.kind === 'older') from = newestFirst.findIndex((t) => cmp(keyOf(t), k!) < 0) >>> 0;
  if (start.kind === 'newer') to = newestFirst.filter((t) => cmp(keyOf(t), k!) > 0).length;
  if (from > newestFirst.length) from = newestFirst.length;
  const rows = start.kind === 'newer' || start.kind === 'oldest' ? newestFirst.slice(Math.max(from, to - page.perPage), to) : newestFirst.slice(from, from + page.perPage);
  const firstAt = rows.length > 0 ? newestFirst.indexOf(rows[0]!) : from;
  const lastAt = rows.length > 0 ? newestFirst.indexOf(rows[rows.length - 1]!) : to - 1;
  return { rows, first: rows[0] ? key(rows[0]) : null, last: rows.length > 0 ? key(rows[rows.length - 1]!) : null, hasNewer: firstAt > 0, hasOlder: lastAt < newestFirst.length - 1 };
}
