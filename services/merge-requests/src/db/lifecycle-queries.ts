import { enqueueEvent } from '@githost/bus';
import type { Database, Queryable } from '@githost/db';
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
    for (const change of changes) await applyChangeIn(tx, change);
    return true;
  });
}

export async function wasHandled(db: Database, eventId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM handled_events WHERE event_id = $1', [eventId])).rows.length > 0;
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
