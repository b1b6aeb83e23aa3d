import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, type Database } from '@githost/db';
import { openAccountsDatabase } from '../src/db/open.js';
import { PgRepositoryStore } from '../src/db/repository-store.js';
import { PgUserStore } from '../src/db/user-store.js';

const OWNED = 1_000;
const OTHERS = 10_000;
const ME = 'u-me';
/**
 * Others' repositories the caller collaborates on. Few, as for most users: with 25, PGlite's small
 * ANALYZE sample (default_statistics_target 10: 3,000 rows of collaborators) overestimated them
 * now and then (47 for 26; 8 of 480 ANALYZEs), and at 11,000 repositories the planner then rightly
 * found a whole scan of them cheaper than that many index lookups: the test read the sample, not
 * the query. With 10 no sample comes near that crossover.
 */
const COLLABORATED = 10;

/**
 * GET /api/user/repos (docs/decisions/explore-lists.md#the-callers-own-list): a caller owning
 * 1,000 repositories among 10,000 other users' ones, collaborating on some of theirs (owners
 * sorting before and after the caller) and on one of their own.
 */
async function seed(db: Database): Promise<void> {
  // Never analysed, as after a burst of creations: the plan must not depend on statistics.
  for (const table of ['users', 'repositories', 'collaborators']) await db.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  await db.query(`INSERT INTO users (id, username, email) VALUES ($1, 'Mid', 'mid@example.test')`, [ME]);
  await db.query(`INSERT INTO users (id, username, email) SELECT 'u' || n, CASE WHEN n % 2 = 0 THEN 'a' ELSE 'Z' END || lpad(n::text, 5, '0'), 'u' || n || '@example.test' FROM generate_series(1, $1::int) AS n`, [OTHERS]);
  // Mixed letter case, so the order is lower(name)'s, not the bytes'.
  await db.query(`INSERT INTO repositories (id, owner_id, name) SELECT 'mine-' || n, $1, CASE WHEN n % 3 = 0 THEN 'Repo-' ELSE 'repo-' END || n FROM generate_series(1, $2::int) AS n`, [ME, OWNED]);
  await db.query(`INSERT INTO repositories (id, owner_id, name) SELECT 'other-' || n, 'u' || n, 'one' FROM generate_series(1, $1::int) AS n`, [OTHERS]);
  await db.query(`INSERT INTO collaborators (repository_id, user_id, permission) SELECT 'other-' || n, $1, 'read' FROM generate_series(1, $2::int) AS n`, [ME, COLLABORATED]);
  await db.query(`INSERT INTO collaborators (repository_id, user_id, permission) VALUES ('mine-7', $1, 'write')`, [ME]);
  await db.query(`INSERT INTO collaborators (repository_id, user_id, permission) SELECT 'other-' || n, 'u1', 'write' FROM generate_series(2, $1::int) AS n`, [OTHERS]);
}

/** The list's definition, as the store read it before: every repository the caller owns or
 *  collaborates on, by owner, name (both case-folded), then id. */
async function everyRow(db: Database): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT r.id FROM repositories r JOIN users u ON u.id = r.owner_id
      WHERE r.owner_id = $1 OR EXISTS (SELECT 1 FROM collaborators c WHERE c.repository_id = r.id AND c.user_id = $1)
      ORDER BY lower(u.username), lower(r.name), r.id`,
    [ME],
  );
  return rows.map((r) => r.id);
}

interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; 'Actual Rows': number; 'Actual Loops': number; Plans?: PlanNode[] }

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** Each statement `read` runs (listForMember's first page unless told), EXPLAIN ANALYZEd with its very parameters. */
async function plansOf(db: Database, read = (store: PgRepositoryStore) => store.listForMember(ME, { page: 1, per_page: 30 })): Promise<PlanNode[][]> {
  const plans: PlanNode[][] = [];
  const explaining = Object.create(db) as Database;
  explaining.query = async <T>(sql: string, params?: unknown[]) => {
    const r = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
    const json = r.rows[0]!['QUERY PLAN'];
    plans.push(nodesOf((typeof json === 'string' ? JSON.parse(json) : json)[0].Plan));
    return { rows: [] as T[], rowCount: 0 };
  };
  await read(new PgRepositoryStore(explaining));
  return plans;
}

/** Rows every node produced, over all its loops: what the statement read and joined. */
const rowsHandled = (nodes: PlanNode[]) => nodes.reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);

describe.each(['postgres', 'pglite'] as const)("the caller's repositories on %s", (backend) => {
  let db: Database;
  let done: () => Promise<void>;
  let store: PgRepositoryStore;
  let expected: string[];

  beforeAll(async () => {
    if (backend === 'postgres') {
      const t = await createTestDatabase('githost_accounts_members');
      db = await openAccountsDatabase({ url: t.url });
      done = async () => {
        await db.close();
        await t.drop();
      };
    } else {
      const dir = await mkdtemp(path.join(tmpdir(), 'githost-accounts-members-'));
      db = await openAccountsDatabase({ pgliteDir: dir });
      done = async () => {
        await db.close();
        await rm(dir, { recursive: true, force: true });
      };
    }
    await seed(db);
    store = new PgRepositoryStore(db);
    expected = await everyRow(db);
  }, 120_000);
  afterAll(async () => done?.());

  it('when pages are read at the start, across the end of the collaborations and past the end, then they are slices of the list in its order, with its total', async () => {
    // 1,000 owned, 10 collaborated of others' (the one on an owned repository is not counted twice).
    expect(expected).toHaveLength(OWNED + COLLABORATED);
    expect(expected.slice(0, 2)).toEqual(['other-2', 'other-4']);
    for (const page of [{ page: 1, per_page: 30 }, { page: 2, per_page: 30 }, { page: 1, per_page: 13 }, { page: 35, per_page: 30 }, { page: 11, per_page: 100 }, { page: 12, per_page: 100 }]) {
      const got = await store.listForMember(ME, page);
      const from = (page.page - 1) * page.per_page;
      expect({ page, ids: got.items.map((r) => r.id), total: got.total }).toEqual({ page, ids: expected.slice(from, from + page.per_page), total: expected.length });
    }
    const first = await store.listForMember(ME, { page: 1, per_page: 100 });
    const mine = first.items.find((r) => r.id === 'mine-102');
    expect(mine).toMatchObject({ owner: 'Mid', owner_id: ME, name: 'Repo-102', private: false, default_branch: 'main' });
  });

  it('when the caller owns one repository and collaborates on none, then it is the page; with none at all, the page is empty with total 0', async () => {
    expect(await store.listForMember('u3', { page: 1, per_page: 30 })).toEqual({ items: [{ ...(await store.byId('other-3'))! }], total: 1 });
    expect(await store.listForMember('u-nobody', { page: 1, per_page: 30 })).toEqual({ items: [], total: 0 });
  });

  it.each(['never analysed', 'analysed'])('when the first page is read from a table %s, then no statement scans repositories or users whole, nor handles rows in proportion to them', async (state) => {
    if (state === 'analysed') await db.query('ANALYZE');
    const plans = await plansOf(db);
    expect(plans).toHaveLength(2);
    for (const nodes of plans) {
      const seqScans = nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']);
      expect(seqScans.filter((t) => t === 'repositories' || t === 'users')).toEqual([]);
      // At most the caller's own rows a few times over; the OR over both read every user
      // against every owned row (a million here).
      expect(rowsHandled(nodes)).toBeLessThan(4 * (OWNED + COLLABORATED + 1));
    }
  });

  it('when rows were written with plain SQL, not through the stores (as an older replica writes during a rolling upgrade), then the kept counts count them', async () => {
    const totals = await Promise.all([{ userId: null, isAdmin: false }, { userId: ME, isAdmin: false }, { userId: null, isAdmin: true }].map(async (viewer) => (await store.listReadable(viewer, {}, { page: 1, per_page: 1 })).total));
    expect(totals).toEqual([OWNED + OTHERS, OWNED + OTHERS, OWNED + OTHERS]);
    await db.query(`UPDATE repositories SET private = true WHERE id IN ('mine-1', 'other-1', 'other-2')`);
    await db.query(`UPDATE users SET suspended_at = now() WHERE id IN ('u5', 'u6')`);
    // mine-1 is the caller's own, other-1 and other-2 collaborations: still theirs to read.
    expect((await store.listReadable({ userId: null, isAdmin: false }, {}, { page: 1, per_page: 1 })).total).toBe(OWNED + OTHERS - 3);
    expect((await store.listReadable({ userId: ME, isAdmin: false }, {}, { page: 1, per_page: 1 })).total).toBe(OWNED + OTHERS);
    // The owner's list: the public ones for anyone, every one for the owner, a collaborated private one for its collaborator.
    const ownedBy = async (owner: string, userId: string | null) => (await store.listOwnedBy(owner, { userId, isAdmin: false }, { page: 1, per_page: 1 })).total;
    expect([await ownedBy(ME, null), await ownedBy(ME, ME), await ownedBy('u1', null), await ownedBy('u1', ME), await ownedBy('u2', 'u1')]).toEqual([OWNED - 1, OWNED, 0, 1, 1]);
    expect((await store.listForMember('u1', { page: 1, per_page: 1 })).total).toBe(OTHERS);
    const users = new PgUserStore(db);
    expect([(await users.listActive(undefined, { page: 1, per_page: 1 })).total, (await users.list({ page: 1, per_page: 1 })).total]).toEqual([OTHERS + 1 - 2, OTHERS + 1]);
    await db.query(`UPDATE repositories SET private = false WHERE id IN ('mine-1', 'other-1', 'other-2')`);
    await db.query(`UPDATE users SET suspended_at = NULL WHERE id IN ('u5', 'u6')`);
  });

  it.each([['the owner', ME], ['an anonymous caller', null]])('when %s reads the owner\'s list of 1,000, then its total is the owner\'s kept count and its page the first rows of their name index, without counting or sorting their repositories', async (_who, userId) => {
    await db.query('ANALYZE');
    const [count, page] = await plansOf(db, (store) => store.listOwnedBy(ME, { userId, isAdmin: false }, { page: 1, per_page: 30 }));
    expect(rowsHandled(count!)).toBeLessThan(10);
    // The page walks the owner's name index and stops at its end, instead of sorting all 1,000.
    expect(rowsHandled(page!)).toBeLessThan(200);
    expect((await store.listOwnedBy(ME, { userId, isAdmin: false }, { page: 1, per_page: 30 })).total).toBe(OWNED);
  });

  it.each([['the caller', ME], ['an anonymous caller', null]])('when %s explores the site, then the total is counted from the kept counts and the caller\'s own rows, never every repository (docs/decisions/explore-lists.md#the-count-of-a-page)', async (_who, userId) => {
    await db.query('ANALYZE');
    const [count, page] = await plansOf(db, (store) => store.listReadable({ userId, isAdmin: false }, {}, { page: 1, per_page: 30 }));
    expect(count!.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']).filter((t) => t === 'repositories' || t === 'users')).toEqual([]);
    // 11,000 repositories: the count handles at most the caller's own rows (1,000 owned, 11 collaborations) a few times over.
    expect(rowsHandled(count!)).toBeLessThan(userId === null ? 10 : 4 * (OWNED + COLLABORATED + 1));
    // The page walks the activity index and stops at its end.
    expect(rowsHandled(page!)).toBeLessThan(200);
  });
});
