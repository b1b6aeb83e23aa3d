import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, migrate, openDatabase, type Database, type PageRequest, type Queryable } from '@githost/db';
import { MIGRATIONS } from '../src/db/migrations.js';
import { PgMergeRequestStore } from '../src/db/merge-request-store.js';
import type { MergeRequestChange } from '../src/domain/ports.js';
import type { MergeRequest } from '../src/domain/types.js';
import { storeBackends } from './support/backends.js';

const SHA = 'a'.repeat(40);
const NEXT = 'b'.repeat(40);

const backends = storeBackends('githost_mr_paging');

const envelope = (mr: MergeRequest, action: string) => ({ id: randomUUID(), kind: 'merge_request', occurred_at: mr.updated_at, repository: { id: mr.repo_id, owner: 'o', name: 'n' }, payload: { action, number: mr.number, head: mr.head_sha } });

/** Every page from the newest on, following `next` as a client follows the Link header. */
async function walk<T>(read: (page: PageRequest) => Promise<{ rows: T[]; last: { at: string; tie: string } | null; hasOlder: boolean }>, perPage: number, between?: () => Promise<void>) {
  const seen: T[] = [];
  let page: PageRequest = { perPage, start: { kind: 'newest' } };
  for (;;) {
    const got = await read(page);
    seen.push(...got.rows);
    if (!got.hasOlder) return seen;
    await between?.();
    page = { perPage, start: { kind: 'older', key: got.last! } };
  }
}

describe.each(backends)('merge request lists and push fan-out on %s', (_name, open) => {
  let db: Database;
  let done: () => Promise<void>;
  let store: PgMergeRequestStore;
  const create = (repoId: string, source = 'feature') =>
    store.create({ repo_id: repoId, title: 'T', description: null, author_id: 'u1', source_branch: source, target_branch: 'main', source_sha: SHA }, { shard: 'default' });

  beforeAll(async () => {
    ({ db, done } = await open());
    await migrate(db, MIGRATIONS);
    store = new PgMergeRequestStore(db);
  });
  afterAll(async () => done());

  it('when pages are walked while merge requests are opened and closed, then each one there at the start is read exactly once, in the list order', async () => {
    const repo = 'r-walk';
    for (let i = 0; i < 57; i++) await create(repo);
    const before = await store.list(repo, 'open', 1000);
    let inserted = 0;
    const seen = await walk((p) => store.listPage(repo, 'open', p), 10, async () => {
      // Two new ones on top and the newest-but-one of the old ones closed, before every next page.
      await create(repo);
      await create(repo);
      inserted += 2;
    });
    expect(inserted).toBe(10);
    const numbers = seen.map((m) => m.number);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(numbers).toEqual(before.map((m) => m.number));
    expect((await store.list(repo, 'open', 50)).map((m) => m.number)).toEqual((await store.listPage(repo, 'open', { perPage: 50, start: { kind: 'newest' } })).rows.map((m) => m.number));
  });

  it('when a page goes back (prev) or to the end (last), then it holds the neighbours of the page it came from, newest first', async () => {
    const repo = 'r-back';
    for (let i = 0; i < 25; i++) await create(repo);
    const first = await store.listPage(repo, 'open', { perPage: 10, start: { kind: 'newest' } });
    expect(first).toMatchObject({ hasNewer: false, hasOlder: true });
    expect(first.rows.map((m) => m.number)).toEqual([25, 24, 23, 22, 21, 20, 19, 18, 17, 16]);
    const second = await store.listPage(repo, 'open', { perPage: 10, start: { kind: 'older', key: first.last! } });
    expect(second.rows.map((m) => m.number)).toEqual([15, 14, 13, 12, 11, 10, 9, 8, 7, 6]);
    expect(second).toMatchObject({ hasNewer: true, hasOlder: true });
    const back = await store.listPage(repo, 'open', { perPage: 10, start: { kind: 'newer', key: second.first! } });
    expect(back.rows.map((m) => m.number)).toEqual(first.rows.map((m) => m.number));
    expect(back).toMatchObject({ hasNewer: false, hasOlder: true });
    const last = await store.listPage(repo, 'open', { perPage: 10, start: { kind: 'oldest' } });
    expect(last.rows.map((m) => m.number)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(last).toMatchObject({ hasNewer: true, hasOlder: false });
    const closedPage = await store.listPage(repo, 'closed', { perPage: 10, start: { kind: 'newest' } });
    expect(closedPage).toEqual({ rows: [], first: null, last: null, hasNewer: false, hasOlder: false });
  });

  it('when the activity log is paged, then the pages are the log, newest first, without repeats', async () => {
    const repo = 'r-activity';
    for (let i = 0; i < 23; i++) await create(repo);
    const all = await store.listActivity(repo, 100);
    const seen = await walk((p) => store.activityPage(repo, p), 7);
    expect(seen.map((a) => a.id)).toEqual(all.map((a) => a.id));
    expect(seen).toHaveLength(23);
  });

  it('when one push moves the head of 2,000 open merge requests, then all are updated with their activity and event in a fixed number of statements', async () => {
    const repo = 'r-fan-out';
    await db.query(
      `INSERT INTO merge_requests (repo_id, number, title, author_id, source_branch, target_branch, source_sha, head_sha)
       SELECT $1, n, 'MR ' || n, 'u1', 'shared', 'main', $2, $2 FROM generate_series(1, 2000) AS n`,
      [repo, SHA],
    );
    const open = await store.openOnBranch(repo, 'shared');
    expect(open).toHaveLength(2000);
    const changes: MergeRequestChange[] = open.map((mr) => ({
      mr_id: mr.id,
      from_state: 'open',
      set: { head_sha: NEXT },
      activities: [{ user_id: 'u2', action: 'push_mr', data: { mr_number: mr.number, after: NEXT } }],
      events: (after) => [envelope(after, 'synchronize')],
    }));
    const outboxBefore = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM outbox')).rows[0]!.n);
    const statements = countingTransactions(db);
    const counted = new PgMergeRequestStore(statements.db);
    expect(await counted.applyEvent(randomUUID(), repo, changes)).toBe(true);
    expect(statements.count()).toBeLessThanOrEqual(6);
    const heads = await db.query<{ head_sha: string; n: string }>('SELECT head_sha, count(*) AS n FROM merge_requests WHERE repo_id = $1 GROUP BY head_sha', [repo]);
    expect(heads.rows.map((r) => [r.head_sha, Number(r.n)])).toEqual([[NEXT, 2000]]);
    const activity = await db.query<{ n: string; numbers: string }>(
      `SELECT count(*) AS n, count(DISTINCT (data->>'mr_number')) AS numbers FROM activity WHERE repo_id = $1 AND action = 'push_mr'`,
      [repo],
    );
    expect([Number(activity.rows[0]!.n), Number(activity.rows[0]!.numbers)]).toEqual([2000, 2000]);
    const events = await db.query<{ envelope: { payload: { action: string; number: number; head: string } } }>('SELECT envelope FROM outbox ORDER BY seq');
    const fanned = events.rows.slice(outboxBefore).map((r) => r.envelope.payload);
    expect(fanned).toHaveLength(2000);
    // In the order of the changes (by number), each built from the record after the change.
    expect(fanned.map((p) => p.number)).toEqual(open.map((m) => m.number));
    expect(new Set(fanned.map((p) => `${p.action} ${p.head}`))).toEqual(new Set([`synchronize ${NEXT}`]));
  });

  it('when a batch meets a merge in flight on an unless_merging change, then nothing of it is written; a change from a state no longer held is skipped', async () => {
    const repo = 'r-batch-guard';
    const [a, b, c] = [await create(repo), await create(repo), await create(repo)];
    await db.query(`UPDATE merge_requests SET state = 'closed' WHERE id = $1`, [c.id]);
    expect(await store.claimMerge({ mr_id: b.id, repo: { id: repo, owner: 'o', name: 'n', shard: 'default' }, merger_id: 'u1', request_id: null })).toBe('claimed');
    const change = (mr: MergeRequest, extra: Partial<MergeRequestChange> = {}): MergeRequestChange => ({
      mr_id: mr.id,
      from_state: 'open',
      set: { head_sha: NEXT },
      activities: [{ user_id: null, action: 'push_mr', data: { mr_number: mr.number } }],
      events: (after) => [envelope(after, 'synchronize')],
      ...extra,
    });
    await expect(store.applyEvent(randomUUID(), repo, [change(a), change(b, { unless_merging: true })])).rejects.toMatchObject({ kind: 'conflict' });
    expect((await store.findById(a.id))!.head_sha).toBe(SHA);
    await store.releaseMerge(b.id);
    expect(await store.applyEvent(randomUUID(), repo, [change(a), change(c)])).toBe(true);
    expect((await store.findById(a.id))!.head_sha).toBe(NEXT);
    expect((await store.findById(c.id))!.head_sha).toBe(SHA);
    const logged = await db.query<{ n: number }>(`SELECT (data->>'mr_number')::int AS n FROM activity WHERE repo_id = $1 AND action = 'push_mr'`, [repo]);
    expect(logged.rows.map((r) => r.n)).toEqual([a.number]);
  });

  it('when handled events are pruned, then only those older than the retention go, a few hundred at a time', async () => {
    await db.query(`INSERT INTO handled_events (event_id, repo_id, handled_at) SELECT 'old-' || n, 'r-prune', clock_timestamp() - interval '8 days' FROM generate_series(1, 1203) AS n`);
    await db.query(`INSERT INTO handled_events (event_id, repo_id) SELECT 'young-' || n, 'r-prune' FROM generate_series(1, 7) AS n`);
    expect(await store.pruneHandledEvents(7)).toBe(1203);
    const left = await db.query<{ event_id: string }>(`SELECT event_id FROM handled_events WHERE repo_id = 'r-prune' ORDER BY event_id`);
    expect(left.rows.map((r) => r.event_id)).toEqual(['young-1', 'young-2', 'young-3', 'young-4', 'young-5', 'young-6', 'young-7']);
    expect(await store.pruneHandledEvents(7)).toBe(0);
  });
});

/** A database whose transactions count the statements they run. */
function countingTransactions(db: Database): { db: Database; count: () => number } {
  let n = 0;
  const wrapped = Object.create(db) as Database;
  wrapped.transaction = <T>(fn: (tx: Queryable) => Promise<T>) =>
    db.transaction((tx) =>
      fn({
        query: (sql, params) => {
          n++;
          return tx.query(sql, params);
        },
      }),
    );
  return { db: wrapped, count: () => n };
}

describe('plans of the list queries on Postgres', () => {
  let db: Database;
  let drop: () => Promise<void>;
  let store: PgMergeRequestStore;

  beforeAll(async () => {
    const t = await createTestDatabase('githost_mr_plans');
    drop = t.drop;
    db = await openDatabase({ url: t.url, schema: 'merge_requests' });
    await migrate(db, MIGRATIONS);
    store = new PgMergeRequestStore(db);
    // 100,000 merge requests and activities over 20 repositories: without the indexes the planner
    // can only read the whole table; with them a page is a short index range.
    await db.query(
      `INSERT INTO merge_requests (repo_id, number, title, author_id, source_branch, target_branch, source_sha, head_sha, state, created_at)
       SELECT 'repo-' || (n % 20), n, 'MR ' || n, 'u1', 'b' || n, 'main', $1, $1, CASE WHEN n % 3 = 0 THEN 'closed' ELSE 'open' END,
              timestamptz '2026-01-01' + n * interval '1 second'
         FROM generate_series(1, 100000) AS n`,
      [SHA],
    );
    await db.query(
      `INSERT INTO activity (repo_id, user_id, action, data, created_at)
       SELECT 'repo-' || (n % 20), 'u1', 'create_mr', jsonb_build_object('mr_number', n), timestamptz '2026-01-01' + n * interval '1 second'
         FROM generate_series(1, 100000) AS n`,
    );
    await db.query(`INSERT INTO handled_events (event_id, repo_id, handled_at) SELECT 'e-' || n, 'repo-1', clock_timestamp() - n * interval '10 seconds' FROM generate_series(1, 100000) AS n`);
    await db.query('ANALYZE handled_events');
    await db.query('ANALYZE merge_requests');
    await db.query('ANALYZE activity');
  });
  afterAll(async () => {
    await db.close();
    await drop();
  });

  /** The plans of every statement a page runs, from EXPLAIN of the very SQL and parameters. */
  const plansOf = async (run: (q: PgMergeRequestStore) => Promise<unknown>) => {
    const plans: string[] = [];
    const explaining = Object.create(db) as Database;
    explaining.query = async <T>(sql: string, params?: unknown[]) => {
      const r = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
      plans.push(r.rows.map((row) => row['QUERY PLAN']).join('\n'));
      return { rows: [] as T[], rowCount: 0 };
    };
    await run(new PgMergeRequestStore(explaining));
    return plans;
  };
  const key = { at: String(Date.parse('2026-01-01T12:00:00Z') * 1000), tie: '43200' };

  it.each([
    ['merge requests, first page', (s: PgMergeRequestStore) => s.listPage('repo-7', 'open', { perPage: 100, start: { kind: 'newest' } }), 'merge_requests_page_idx'],
    ['merge requests, next page', (s: PgMergeRequestStore) => s.listPage('repo-7', 'open', { perPage: 100, start: { kind: 'older', key } }), 'merge_requests_page_idx'],
    ['merge requests, previous page', (s: PgMergeRequestStore) => s.listPage('repo-7', 'open', { perPage: 100, start: { kind: 'newer', key } }), 'merge_requests_page_idx'],
    ['merge requests, the spec list', (s: PgMergeRequestStore) => s.list('repo-7', 'open', 50), 'merge_requests_'],
    ['activity, next page', (s: PgMergeRequestStore) => s.activityPage('repo-7', { perPage: 100, start: { kind: 'older', key } }), 'activity_repo_idx'],
    ['activity, last page', (s: PgMergeRequestStore) => s.activityPage('repo-7', { perPage: 100, start: { kind: 'oldest' } }), 'activity_repo_idx'],
    ['handled events pruning', (s: PgMergeRequestStore) => s.pruneHandledEvents(7), 'handled_events_age_idx'],
  ])('when %s is read from 100,000 rows, then every statement is an index scan, never a sequential one', async (_what, run, index) => {
    const plans = await plansOf(run);
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of plans) {
      expect(plan).not.toMatch(/Seq Scan/);
      expect(plan).toMatch(/Index (Only )?Scan( Backward)? using /);
      expect(plan).toContain(index);
    }
  });

  it('when the page is read for real, then it is the rows the plan promises', async () => {
    const page = await store.listPage('repo-7', 'open', { perPage: 3, start: { kind: 'older', key } });
    expect(page.rows.map((m) => m.number)).toEqual([43187, 43147, 43127]);
  });
});
