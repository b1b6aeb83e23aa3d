import { GroupCommit, keysetPage, type Database, type KeysetPage, type PageRequest, type Queryable } from '@githost/db';
import { enqueueEvent } from '@githost/bus';
import type { MergeRequestChange } from '../domain/ports.js';
import type { ClaimResult, EventOf, MergeCompletion, MergePlan, MergeRequestStore, NewComment, NewMergeRequest } from '../domain/ports.js';
import type { Activity, Comment, MergeIntent, MergeRequest } from '../domain/types.js';
import * as lifecycle from './lifecycle-queries.js';
import { COMMENT_COLUMNS, MR_COLUMNS, toActivity, toComment, toIntent, toMergeRequest } from './rows.js';

type Row = Record<string, unknown>;

/** How often a live merge refreshes its intent; recovery's grace (recovery-loop.ts) is several beats. */
export const INTENT_HEARTBEAT_MS = 2_000;

/** Recovery's grace: an intent idle this long belongs to a merge whose process died (five missed beats). */
export const INTENT_STALE_AFTER_MS = 5 * INTENT_HEARTBEAT_MS;

/**
 * How soon recovery takes an intent its own live merge gave up on (the outcome of the ref move
 * unknown, git-storage not answering): there is no dead process to wait for, only a move that may
 * still be finishing on a git-storage whose answer was lost, which takes milliseconds.
 */
export const LEFT_INTENT_RECOVERY_MS = 3_000;

/** How often a merge left to recovery tries again to say so while the database does not answer. */
const LEAVE_RETRY_MS = 500;

/** Largest shared branch lookup: above the bus prefetch (32), so one burst is one query. */
const BRANCH_LOOKUP_BATCH = 64;

async function logActivity(tx: Queryable, repoId: string, userId: string | null, action: string, data: Record<string, unknown>): Promise<void> {
  await tx.query('INSERT INTO activity (repo_id, user_id, action, data) VALUES ($1, $2, $3, $4::jsonb)', [repoId, userId, action, JSON.stringify(data)]);
}

/** seed §4 merge procedure steps 7 and 8 inside `tx`: null when the merge request was not open. */
async function completeIn(tx: Queryable, c: MergeCompletion): Promise<MergeRequest | null> {
  const updated = await tx.query<Row>(
    `UPDATE merge_requests SET state = 'merged', merged_sha = $2, merged_by = $3, updated_at = clock_timestamp()
      WHERE id = $1 AND state = 'open' RETURNING ${MR_COLUMNS}`,
    [c.mr_id, c.merged_sha, c.merged_by],
  );
  await tx.query('DELETE FROM merge_intents WHERE mr_id = $1', [c.mr_id]);
  const row = updated.rows[0];
  if (!row) return null;
  const merged = toMergeRequest(row);
  // Activity and the webhook event, committed together with the state.
  await logActivity(tx, merged.repo_id, c.merged_by, 'merge_mr', { mr_number: merged.number, mr_title: merged.title, merged_sha: c.merged_sha });
  await enqueueEvent(tx, c.event(merged));
  return merged;
}

/** MergeRequestStore on Postgres or PGlite (schema `merge_requests`). */
export class PgMergeRequestStore implements MergeRequestStore {
  /** Merge intents this process holds. While a merge runs its intent's `updated_at` is refreshed
   *  every `heartbeatMs`, so recovery (which takes intents idle for its grace) never takes a live
   *  merge's intent and takes a dead process's within seconds. */
  private readonly held = new Set<string>();
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly heartbeatMs: number;
  /** The pushes the consumer handles at once (its prefetch) share one lookup: each push's query
   *  still starts after it arrived, so nothing is answered from an earlier event's look. */
  private readonly branchLookups: GroupCommit<lifecycle.BranchKey, MergeRequest[]>;

  constructor(
    private readonly db: Database,
    opts: { heartbeatMs?: number } = {},
  ) {
    this.heartbeatMs = opts.heartbeatMs ?? INTENT_HEARTBEAT_MS;
    this.branchLookups = new GroupCommit({ runBatch: (keys) => lifecycle.openOnBranches(db, keys), maxBatch: BRANCH_LOOKUP_BATCH });
  }

  private hold(mrId: string): void {
    this.held.add(mrId);
    this.heartbeat ??= setInterval(() => {
      if (this.held.size === 0) return;
      this.db
        .query('UPDATE merge_intents SET updated_at = clock_timestamp() WHERE mr_id = ANY($1::uuid[])', [[...this.held]])
        .catch(() => undefined); // the next beat retries; recovery's grace is several beats long
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private letGo(mrId: string): void {
    this.held.delete(mrId);
    if (this.held.size === 0 && this.heartbeat) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  async create(input: NewMergeRequest, opts: { shard?: string; event?: EventOf<MergeRequest> } = {}): Promise<MergeRequest> {
    return this.db.transaction(async (tx) => {
      // The counter row's lock serialises creates per repository until commit: numbers are
      // highest + 1 (seed §2), and a rolled-back create gives its number back (no gaps).
      const counter = await tx.query<{ last_number: number }>(
        `INSERT INTO merge_request_counters (repo_id, last_number) VALUES ($1, 1)
         ON CONFLICT (repo_id) DO UPDATE SET last_number = merge_request_counters.last_number + 1
         RETURNING last_number`,
        [input.repo_id],
      );
      const number = Number(counter.rows[0]!.last_number);
      const inserted = await tx.query<Row>(
        `INSERT INTO merge_requests (repo_id, number, title, description, author_id, source_branch, target_branch, source_sha, head_sha, repo_shard)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9) RETURNING ${MR_COLUMNS}`,
        [input.repo_id, number, input.title, input.description, input.author_id, input.source_branch, input.target_branch, input.source_sha, opts.shard ?? 'default'],
      );
      await logActivity(tx, input.repo_id, input.author_id, 'create_mr', { mr_number: number, mr_title: input.title });
      const created = toMergeRequest(inserted.rows[0]!);
      if (opts.event) await enqueueEvent(tx, opts.event(created));
      return created;
    });
  }

  async list(repoId: string, state: string, limit: number): Promise<MergeRequest[]> {
    const r = await this.db.query<Row>(
      `SELECT ${MR_COLUMNS} FROM merge_requests WHERE repo_id = $1 AND state = $2 ORDER BY created_at DESC, number DESC LIMIT $3`,
      [repoId, state, limit],
    );
    return r.rows.map(toMergeRequest);
  }

  /** A keyset page of the same list (docs/decisions/list-paging.md), over merge_requests_page_idx. */
  async listPage(repoId: string, state: string, page: PageRequest): Promise<KeysetPage<MergeRequest>> {
    const r = await keysetPage<Row>(this.db, { columns: MR_COLUMNS, from: 'merge_requests', where: 'repo_id = $1 AND state = $2', params: [repoId, state], at: 'created_at', tie: 'number' }, page);
    return { ...r, rows: r.rows.map(toMergeRequest) };
  }

  /** An index-only count over merge_requests_page_idx's leading columns. */
  async countByState(repoId: string, state: string): Promise<number> {
    const r = await this.db.query<{ n: string | number }>(`SELECT count(*) AS n FROM merge_requests WHERE repo_id = $1 AND state = $2`, [repoId, state]);
    return Number(r.rows[0]?.n ?? 0);
  }

  async findByNumber(repoId: string, number: number): Promise<MergeRequest | null> {
    const r = await this.db.query<Row>(`SELECT ${MR_COLUMNS} FROM merge_requests WHERE repo_id = $1 AND number = $2`, [repoId, number]);
    return r.rows[0] ? toMergeRequest(r.rows[0]) : null;
  }

  async findByNumbers(repoId: string, numbers: number[]): Promise<MergeRequest[]> {
    const r = await this.db.query<Row>(`SELECT ${MR_COLUMNS} FROM merge_requests WHERE repo_id = $1 AND number = ANY($2::int[])`, [repoId, numbers]);
    return r.rows.map(toMergeRequest);
  }

  async findById(mrId: string): Promise<MergeRequest | null> {
    const r = await this.db.query<Row>(`SELECT ${MR_COLUMNS} FROM merge_requests WHERE id = $1`, [mrId]);
    return r.rows[0] ? toMergeRequest(r.rows[0]) : null;
  }

  async listComments(mrId: string): Promise<Comment[]> {
    const r = await this.db.query<Row>(`SELECT ${COMMENT_COLUMNS} FROM merge_request_comments WHERE mr_id = $1 ORDER BY created_at, seq`, [mrId]);
    return r.rows.map(toComment);
  }

  async addComment(c: NewComment, event?: EventOf<Comment>): Promise<Comment> {
    return this.db.transaction(async (tx) => {
      const r = await tx.query<Row>(
        `INSERT INTO merge_request_comments (mr_id, author_id, body, file_path, line_number, diff_side)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COMMENT_COLUMNS}`,
        [c.mr_id, c.author_id, c.body, c.file_path, c.line_number, c.diff_side],
      );
      const comment = toComment(r.rows[0]!);
      if (event) await enqueueEvent(tx, event(comment));
      return comment;
    });
  }

  async listActivity(repoId: string, limit: number): Promise<Activity[]> {
    const r = await this.db.query<Row>(
      'SELECT id, action, user_id, data, created_at FROM activity WHERE repo_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2',
      [repoId, limit],
    );
    return r.rows.map(toActivity);
  }

  /** A keyset page of the activity log, over activity_repo_idx. */
  async activityPage(repoId: string, page: PageRequest): Promise<KeysetPage<Activity>> {
    const r = await keysetPage<Row>(this.db, { columns: 'id, action, user_id, data, created_at', from: 'activity', where: 'repo_id = $1', params: [repoId], at: 'created_at', tie: 'seq' }, page);
    return { ...r, rows: r.rows.map(toActivity) };
  }

  async claimMerge(intent: Pick<MergeIntent, 'mr_id' | 'repo' | 'merger_id' | 'request_id'> & { plan?: MergePlan }): Promise<ClaimResult> {
    // One statement, one commit: the row lock orders the claim with the completion and with
    // lifecycle changes (which lock it too), and a row that changed while this waited for the
    // lock is checked again as it is now (READ COMMITTED), so a merged one is not claimed.
    const plan = intent.plan;
    const claimed = await this.db.query(
      `WITH mr AS (SELECT id FROM merge_requests WHERE id = $1 AND state = 'open' FOR UPDATE)
       INSERT INTO merge_intents (mr_id, repo_id, repo_owner, repo_name, repo_shard, merger_id, request_id, target_ref, old_oid, new_oid, strategy)
       SELECT id, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 FROM mr
       ON CONFLICT (mr_id) DO NOTHING RETURNING mr_id`,
      [
        intent.mr_id,
        intent.repo.id,
        intent.repo.owner,
        intent.repo.name,
        intent.repo.shard,
        intent.merger_id,
        intent.request_id,
        plan?.target_ref ?? null,
        plan?.old_oid ?? null,
        plan?.new_oid ?? null,
        plan?.strategy ?? null,
      ],
    );
    if (claimed.rows.length !== 1) return 'not_open';
    this.hold(intent.mr_id);
    return 'claimed';
  }

  async leaveForRecovery(mrId: string, requestId: string | null): Promise<void> {
    this.letGo(mrId);
    // Dated back so it is stale LEFT_INTENT_RECOVERY_MS from now instead of a whole grace. Only
    // this attempt's intent: a later claim's, should one exist, is refreshed by its own merge anyway.
    const backdate = () =>
      this.db.query(`UPDATE merge_intents SET updated_at = clock_timestamp() - $1 * interval '1 millisecond' WHERE mr_id = $2 AND request_id IS NOT DISTINCT FROM $3`, [
        INTENT_STALE_AFTER_MS - LEFT_INTENT_RECOVERY_MS,
        mrId,
        requestId,
      ]);
    try {
      await backdate();
    } catch (err) {
      // The database is often why the merge failed: asked again until it answers, as long as that
      // still brings recovery forward.
      this.backdateLater(backdate, Date.now() + INTENT_STALE_AFTER_MS);
      throw err;
    }
  }

  private backdateLater(backdate: () => Promise<unknown>, until: number): void {
    const timer = setTimeout(() => {
      backdate().catch(() => {
        if (Date.now() < until) this.backdateLater(backdate, until);
      });
    }, LEAVE_RETRY_MS);
    timer.unref();
  }

  async releaseMerge(mrId: string): Promise<void> {
    this.letGo(mrId);
    await this.db.query('DELETE FROM merge_intents WHERE mr_id = $1', [mrId]);
  }

  async completeMerge(c: MergeCompletion): Promise<MergeRequest | null> {
    this.letGo(c.mr_id);
    return this.db.transaction((tx) => completeIn(tx, c));
  }

  async completeMergeOnMove(c: MergeCompletion, moved: Promise<boolean>): Promise<MergeRequest | null | 'not_moved'> {
    // No refresh from here on: the transaction's delete holds the intent's row until it ends, and
    // recovery, should it look meanwhile, waits on that row and on the merge request's.
    this.letGo(c.mr_id);
    if (this.db.kind !== 'postgres') {
      // PGlite runs one transaction at a time for every service of the process: one held open
      // across the move would hold up the services the move calls (accounts for the rules).
      return (await moved) ? this.db.transaction((tx) => completeIn(tx, c)) : 'not_moved';
    }
    let notMoved = false;
    try {
      return await this.db.transaction(async (tx) => {
        const merged = await completeIn(tx, c);
        if (!(await moved)) {
          notMoved = true;
          throw new Error('the ref did not move: rolled back');
        }
        return merged;
      });
    } catch (err) {
      if (notMoved) return 'not_moved';
      throw err;
    }
  }

  async staleIntents(olderThanMs: number): Promise<MergeIntent[]> {
    const r = await this.db.query<Row>(
      `SELECT * FROM merge_intents WHERE updated_at <= clock_timestamp() - $1 * interval '1 millisecond' ORDER BY created_at`,
      [olderThanMs],
    );
    return r.rows.map(toIntent);
  }

  // Lifecycle changes, the push consumer and repository deletion (lifecycle-queries.ts).
  applyChange(change: MergeRequestChange) {
    return lifecycle.applyChange(this.db, change);
  }

  applyEvent(eventId: string, repoId: string, changes: MergeRequestChange[]) {
    return lifecycle.applyEvent(this.db, eventId, repoId, changes);
  }

  wasHandled(eventId: string) {
    return lifecycle.wasHandled(this.db, eventId);
  }

  openOnBranch(repoId: string, branch: string) {
    return this.branchLookups.submit({ repoId, branch });
  }

  isMergeResult(repoId: string, branch: string, sha: string) {
    return lifecycle.isMergeResult(this.db, repoId, branch, sha);
  }

  /** Handled events older than `days` (docs/decisions/list-paging.md#retention); how many went. */
  pruneHandledEvents(days: number) {
    return lifecycle.pruneHandledEvents(this.db, days);
  }

  shardOf(repoId: string) {
    return lifecycle.shardOf(this.db, repoId);
  }

  deleteRepository(repoId: string) {
    return lifecycle.deleteRepository(this.db, repoId);
  }
}
