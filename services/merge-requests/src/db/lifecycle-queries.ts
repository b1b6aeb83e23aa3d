import { enqueueEvent, enqueueEvents, type EventEnvelope } from '@githost/bus';
import { deleteInBatches, type Database, type Queryable } from '@githost/db';
import { conflict } from '@githost/errors';
import type { ActivityEntry, MergeRequestChange } from '../domain/ports.js';
import type { MergeRequest } from '../domain/types.js';
import { REPOSITORY_DATA_DELETES } from './repository-data.js';
import { MR_COLUMNS, toMergeRequest } from './rows.js';

type Row = Record<string, unknown>;

/** Columns a change may set (MergeRequestFields); anything else is never interpolated. */
const SETTABLE = ['title', 'description', 'state', 'head_sha', 'merged_sha', 'merged_by', 'target_branch'] as const;

export async function insertActivity(tx: Queryable, repoId: string, a: ActivityEntry): Promise<void> {
  await tx.query('INSERT INTO activity (repo_id, user_id, action, data) VALUES ($1, $2, $3, $4::jsonb)', [repoId, a.user_id, a.action, JSON.stringify(a.data)]);
}

/**
 * One change inside `tx`. The row is locked first, so a merge claim (which locks it too) and this
 * change are ordered; an intent present after the lock is a merge in flight.
 */
export async function applyChangeIn(tx: Queryable, change: MergeRequestChange): Promise<MergeRequest | null> {
  const locked = await tx.query<{ state: string; merging: boolean }>(
    'SELECT state, EXISTS (SELECT 1 FROM merge_intents i WHERE i.mr_id = m.id) AS merging FROM merge_requests m WHERE id = $1 FOR UPDATE',
    [change.mr_id],
  );
  const row = locked.rows[0];
  if (!row || row.state !== change.from_state) return null;
  if (change.unless_merging && row.merging) throw conflict('A merge of this merge request is in progress; retry shortly');
  const fields = SETTABLE.filter((k) => change.set[k] !== undefined);
  const values = fields.map((k) => change.set[k] ?? null);
  const assignments = [...fields.map((k, i) => `${k} = $${i + 2}`), 'updated_at = clock_timestamp()'].join(', ');
  // Nothing to set (an activity alone): the record, updated_at included, stays as it is.
  const updated = fields.length > 0
    ? await tx.query<Row>(`UPDATE merge_requests SET ${assignments} WHERE id = $1 RETURNING ${MR_COLUMNS}`, [change.mr_id, ...values])
    : await tx.query<Row>(`SELECT ${MR_COLUMNS} FROM merge_requests WHERE id = $1`, [change.mr_id]);
  const mr = toMergeRequest(updated.rows[0]!);
  for (const a of change.activities) await insertActivity(tx, mr.repo_id, a);
  for (const e of change.events(mr)) await enqueueEvent(tx, e);
  return mr;
}

export function applyChange(db: Database, change: MergeRequestChange): Promise<MergeRequest | null> {
  return db.transaction((tx) => applyChangeIn(tx, change));
}

export function applyEvent(db: Database, eventId: string, repoId: string, changes: MergeRequestChange[]): Promise<boolean> {
  return db.transaction(async (tx) => {
    const marked = await tx.query('INSERT INTO handled_events (event_id, repo_id) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING RETURNING event_id', [eventId, repoId]);
    if (marked.rows.length === 0) return false;
    await applyChangesIn(tx, changes);
    return true;
  });
}

/**
 * Many changes inside `tx` in a fixed number of statements, whatever their count (one push to
 * the source of 2,000 open merge requests): the rows locked in one statement (in id order, the
 * order every batch takes them in), one UPDATE per set of columns, one INSERT of the activities
 * and one of the events, each in the order of the changes. What each change does is exactly what
 * applyChangeIn does: still in `from_state` after the lock or nothing; a merge in flight on an
 * `unless_merging` one refuses the whole batch.
 */
export async function applyChangesIn(tx: Queryable, changes: MergeRequestChange[]): Promise<MergeRequest[]> {
  const ids = changes.map((c) => c.mr_id);
  if (new Set(ids).size !== ids.length) {
    // The same merge request twice: each change must see the one before it, as one by one.
    const out: MergeRequest[] = [];
    for (const change of changes) {
      const mr = await applyChangeIn(tx, change);
      if (mr) out.push(mr);
    }
    return out;
  }
  if (changes.length === 0) return [];
  const locked = await tx.query<{ id: string; state: string; merging: boolean }>(
    `SELECT id, state, EXISTS (SELECT 1 FROM merge_intents i WHERE i.mr_id = m.id) AS merging
       FROM merge_requests m WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
    [ids],
  );
  const now = new Map(locked.rows.map((r) => [String(r.id), r]));
  const live = changes.filter((c) => now.get(c.mr_id)?.state === c.from_state);
  if (live.some((c) => c.unless_merging && now.get(c.mr_id)!.merging)) throw conflict('A merge of this merge request is in progress; retry shortly');
  // Changes setting the same columns share one UPDATE over unnest (every settable column is text).
  const groups = new Map<string, MergeRequestChange[]>();
  for (const c of live) {
    const key = SETTABLE.filter((k) => c.set[k] !== undefined).join(',');
    const group = groups.get(key);
    if (group) group.push(c);
    else groups.set(key, [c]);
  }
  const after = new Map<string, MergeRequest>();
  for (const [key, group] of groups) {
    const fields = key === '' ? [] : (key.split(',') as (typeof SETTABLE)[number][]);
    const groupIds = group.map((c) => c.mr_id);
    const r =
      fields.length === 0
        ? await tx.query<Row>(`SELECT ${MR_COLUMNS} FROM merge_requests WHERE id = ANY($1::uuid[])`, [groupIds])
        : await tx.query<Row>(
            `UPDATE merge_requests m SET ${fields.map((f) => `${f} = v.${f}`).join(', ')}, updated_at = clock_timestamp()
               FROM unnest($1::uuid[], ${fields.map((_, i) => `$${i + 2}::text[]`).join(', ')}) AS v(id, ${fields.join(', ')})
              WHERE m.id = ANY($1::uuid[]) AND m.id = v.id
              RETURNING ${MR_COLUMNS.split(', ').map((c) => `m.${c}`).join(', ')}`,
            [groupIds, ...fields.map((f) => group.map((c) => c.set[f] ?? null))],
          );
    for (const row of r.rows) {
      const mr = toMergeRequest(row);
      after.set(mr.id, mr);
    }
  }
  const updated = live.map((c) => after.get(c.mr_id)!);
  const activities = live.flatMap((c, i) => c.activities.map((a) => ({ repo: updated[i]!.repo_id, ...a })));
  if (activities.length > 0) {
    await tx.query(
      `INSERT INTO activity (repo_id, user_id, action, data)
       SELECT a.repo_id, a.user_id, a.action, a.data FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[]) WITH ORDINALITY AS a(repo_id, user_id, action, data, i) ORDER BY a.i`,
      [activities.map((a) => a.repo), activities.map((a) => a.user_id), activities.map((a) => a.action), activities.map((a) => JSON.stringify(a.data))],
    );
  }
  const events: EventEnvelope[] = live.flatMap((c, i) => c.events(updated[i]!));
  await enqueueEvents(tx, events);
  return updated;
}

export async function wasHandled(db: Database, eventId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM handled_events WHERE event_id = $1', [eventId])).rows.length > 0;
}

/**
 * Handled events older than `days`, in batches (docs/decisions/list-paging.md#retention): by then
 * nothing redelivers them (a broker redelivers only what was never acked, a relay republishes only
 * what it never marked published, and both happen within minutes).
 */
export function pruneHandledEvents(db: Database, days: number): Promise<number> {
  // Oldest first from the cursor ($3): a handled_at shared by rows of one transaction is read
  // again by the next batch, the rest of the deleted prefix is not (packages/db/src/prune.ts).
  return deleteInBatches(db, {
    sql: `WITH gone AS (
            DELETE FROM handled_events WHERE ctid = ANY(ARRAY(
              SELECT ctid FROM handled_events WHERE handled_at < clock_timestamp() - $1 * interval '1 day' AND handled_at >= $3::timestamptz
               ORDER BY handled_at LIMIT $2 FOR UPDATE SKIP LOCKED))
            RETURNING handled_at)
          SELECT count(*)::int AS deleted, ARRAY[max(handled_at)::text] AS cursor FROM gone`,
    params: [days],
    start: ['-infinity'],
  });
}

export interface BranchKey {
  repoId: string;
  branch: string;
}

/**
 * For each (repository, branch), the open merge requests whose source or target is that branch,
 * by number, in ONE statement. Two halves rather than one OR: each half is an exact probe of its
 * partial index (migration 4) per key, where an OR lets the planner walk every open merge request
 * of the repository (all targeting `main`, say) for a branch none uses.
 */
export async function openOnBranches(db: Queryable, keys: BranchKey[]): Promise<MergeRequest[][]> {
  const id = (repoId: string, branch: string) => JSON.stringify([repoId, branch]);
  const found = new Map<string, MergeRequest[]>();
  const repos: string[] = [];
  const branches: string[] = [];
  for (const k of keys) {
    const key = id(k.repoId, k.branch);
    if (found.has(key)) continue;
    found.set(key, []);
    repos.push(k.repoId);
    branches.push(k.branch);
  }
  const half = (column: 'source_branch' | 'target_branch', also = '') =>
    `SELECT k.repo AS key_repo, k.branch AS key_branch, ${MR_COLUMNS} FROM unnest($1::text[], $2::text[]) AS k (repo, branch)
       JOIN merge_requests m ON m.repo_id = k.repo AND m.${column} = k.branch AND m.state = 'open'${also}`;
  // The second half leaves out what the first found (a source that is its own target).
  const r = await db.query<Row>(`${half('source_branch')} UNION ALL ${half('target_branch', ' AND m.source_branch <> k.branch')} ORDER BY number`, [repos, branches]);
  for (const row of r.rows) found.get(id(String(row.key_repo), String(row.key_branch)))!.push(toMergeRequest(row));
  // Each caller gets its own copies: two pushes of one branch in a batch share nothing.
  return keys.map((k) => found.get(id(k.repoId, k.branch))!.map((mr) => ({ ...mr })));
}

export async function isMergeResult(db: Database, repoId: string, branch: string, sha: string): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM merge_requests WHERE repo_id = $1 AND target_branch = $2 AND state = 'merged' AND merged_sha = $3 LIMIT 1`, [repoId, branch, sha]);
  return r.rows.length > 0;
}

export async function shardOf(db: Database, repoId: string): Promise<string | null> {
  const r = await db.query<{ repo_shard: string }>('SELECT repo_shard FROM merge_requests WHERE repo_id = $1 ORDER BY number DESC LIMIT 1', [repoId]);
  return r.rows[0]?.repo_shard ?? null;
}

export function deleteRepository(db: Database, repoId: string): Promise<void> {
  return db.transaction(async (tx) => {
    for (const sql of REPOSITORY_DATA_DELETES) await tx.query(sql, [repoId]);
    // Names from the catalog, quoted: nothing from a request is interpolated.
    const others = await tx.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'repo_id' ORDER BY table_name`,
    );
    for (const { table_name: table } of others.rows) await tx.query(`DELETE FROM "${table.replace(/"/g, '""')}" WHERE repo_id = $1`, [repoId]);
  });
}
