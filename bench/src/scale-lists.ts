import { performance } from 'node:perf_hooks';
import { createTestDatabase, migrate, openDatabase, type Database, type PageRequest } from '@githost/db';
import { MIGRATIONS as MR_MIGRATIONS, PgMergeRequestStore } from '@githost/merge-requests';
import { MIGRATIONS as WEBHOOK_MIGRATIONS, PgDeliveryStore, PgWebhookStore } from '@githost/webhooks';
import type { BenchContext } from './context.js';
import type { Section, Table } from './report.js';
import { listSizes } from './scale/ladder.js';

/**
 * Lists at volume (docs/decisions/list-paging.md): the merge request list, the activity log and a
 * webhook's delivery log, one page at the top and one deep in the list, at 1k / 10k / 100k rows
 * of the one repository or webhook read (and as many again of others), generated with SQL in bulk
 * on the local Postgres; and pruning of deliveries, per 100k rows pruned. The services' own store
 * classes run the very queries the API runs. Scale: BENCH_SCALE_SIZES (default 1000,10000,100000; or the scale part's size names).
 */
const READS = 30;

async function timed(n: number, fn: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  const ms: number[] = [];
  await fn(); // warm
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(n / 2)]!, p95: ms[Math.min(n - 1, Math.floor(n * 0.95))]! };
}

const fmt = (x: { p50: number; p95: number }) => `${x.p50.toFixed(2)} / ${x.p95.toFixed(2)}`;

async function withDatabase<T>(prefix: string, schema: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const t = await createTestDatabase(prefix);
  const db = await openDatabase({ url: t.url, schema });
  try {
    return await fn(db);
  } finally {
    await db.close();
    await t.drop();
  }
}

/** A page at the top and one `depth` rows down (its key taken from the table). */
async function pages(read: (p: PageRequest) => Promise<unknown>, deepKey: { at: string; tie: string }) {
  const top = await timed(READS, () => read({ perPage: 50, start: { kind: 'newest' } }));
  const deep = await timed(READS, () => read({ perPage: 50, start: { kind: 'older', key: deepKey } }));
  return { top, deep };
}

/** The SQL generators (one definition, also used by the scale part): rows n = 1..count, row n
 *  in `repos[n % repos.length]`, state `states[n % states.length]`, one second apart from 2026-01-01. */
export async function insertMergeRequests(db: Database, count: number, repos: string[], states: string[]): Promise<void> {
  await db.query(
    `INSERT INTO merge_requests (repo_id, number, title, author_id, source_branch, target_branch, source_sha, head_sha, state, created_at)
     SELECT ($2::text[])[1 + n % cardinality($2::text[])], n, 'MR ' || n, NULL, 'b' || n, 'main', repeat('a', 40), repeat('a', 40),
            ($3::text[])[1 + n % cardinality($3::text[])], timestamptz '2026-01-01' + n * interval '1 second'
       FROM generate_series(1, $1::int) AS n`,
    [count, repos, states],
  );
}

/** `create_mr` activities, spread over `repos` as insertMergeRequests spreads its rows. */
export async function insertActivity(db: Database, count: number, repos: string[]): Promise<void> {
  await db.query(
    `INSERT INTO activity (repo_id, user_id, action, data, created_at)
     SELECT ($2::text[])[1 + n % cardinality($2::text[])], NULL, 'create_mr', jsonb_build_object('mr_number', n), timestamptz '2026-01-01' + n * interval '1 second'
       FROM generate_series(1, $1::int) AS n`,
    [count, repos],
  );
}

/** `count` finished deliveries of `hook` (and as many over `others`, when given), `age` old and one
 *  second apart, each with one ~3 KB attempt, as a real log has. */
export async function insertDeliveries(db: Database, count: number, hook: string, others: string[], age: string): Promise<void> {
  await db.query(
    `WITH d AS (
       INSERT INTO deliveries (id, webhook_id, event_id, event, payload, status, attempts, created_at)
       SELECT gen_random_uuid(), CASE WHEN n <= $1 THEN $2::uuid ELSE ($3::uuid[])[1 + n % cardinality($3::uuid[])] END, 'e' || n, 'push', '{"ref":"refs/heads/main"}', 'delivered', 1,
              now() - $4::interval + (n % $1) * interval '1 second'
         FROM generate_series(1, $1::int * CASE WHEN cardinality($3::uuid[]) > 0 THEN 2 ELSE 1 END) AS n
       RETURNING id)
     INSERT INTO delivery_attempts (delivery_id, number, status, duration_ms, response_status, response_body) SELECT id, 1, 'succeeded', 3, 200, repeat('x', 3000) FROM d`,
    [count, hook, others, age],
  );
}

export async function benchScaleLists(ctx: BenchContext): Promise<Section> {
  const rows: string[][] = [];
  const prune: string[][] = [];
  // Read when the part runs: a setting for the scale part must not stop a run that leaves this part out.
  for (const size of listSizes(process.env)) {
    ctx.log(`scale-lists: ${size.toLocaleString('en-US')} rows`);
    await withDatabase('githost_bench_mr', 'merge_requests', async (db) => {
      await migrate(db, MR_MIGRATIONS);
      // `size` in repo-a (two thirds open), as many spread over 20 other repositories.
      const others = Array.from({ length: 20 }, (_, i) => `repo-${i}`);
      for (const repos of [['repo-a'], others]) {
        await insertMergeRequests(db, size, repos, ['closed', 'open', 'open']);
        await insertActivity(db, size, repos);
      }
      await db.query('ANALYZE');
      const store = new PgMergeRequestStore(db);
      const mid = String((Date.parse('2026-01-01T00:00:00Z') + Math.floor(size / 2) * 1000) * 1000);
      const spec = await timed(READS, () => store.list('repo-a', 'open', 50));
      const mr = await pages((p) => store.listPage('repo-a', 'open', p), { at: mid, tie: String(Math.floor(size / 2)) });
      const act = await pages((p) => store.activityPage('repo-a', p), { at: mid, tie: String(size * 2) });
      rows.push([size.toLocaleString('en-US'), 'merge requests (open)', fmt(spec), fmt(mr.top), fmt(mr.deep)]);
      rows.push([size.toLocaleString('en-US'), 'activity', fmt(await timed(READS, () => store.listActivity('repo-a', 100))), fmt(act.top), fmt(act.deep)]);
    });
    await withDatabase('githost_bench_hooks', 'webhooks', async (db) => {
      await migrate(db, WEBHOOK_MIGRATIONS);
      const webhooks = new PgWebhookStore(db);
      const hooks = await Promise.all(Array.from({ length: 21 }, (_, i) => webhooks.create(`repo-${i}`, { url: 'http://127.0.0.1:9/hook', secret: null, events: 'push' })));
      const hook = hooks[0]!.id;
      // `size` for the one webhook read, as many over 20 others; each with one ~3 KB attempt, as a real log has.
      await insertDeliveries(db, size, hook, hooks.slice(1).map((h) => h.id), '30 days');
      await db.query('ANALYZE');
      const store = new PgDeliveryStore(db);
      const mid = String((Date.now() - 30 * 86_400_000 + (size / 2) * 1000) * 1000);
      const spec = await timed(READS, () => store.listForWebhook(hook, 100));
      const d = await pages((p) => store.pageForWebhook(hook, p), { at: mid, tie: String(Math.floor(size / 2)) });
      rows.push([size.toLocaleString('en-US'), 'webhook deliveries', fmt(spec), fmt(d.top), fmt(d.deep)]);
      const t = performance.now();
      const pruned = await store.prune(100, 7);
      const s = (performance.now() - t) / 1000;
      prune.push([size.toLocaleString('en-US'), (2 * size).toLocaleString('en-US'), pruned.toLocaleString('en-US'), s.toFixed(2), pruned > 0 ? ((s * 100_000) / pruned).toFixed(2) : '-']);
    });
  }
  const tables: Table[] = [
    {
      title: 'Scale: one page of a list, ms p50 / p95 (30 reads each, local Postgres)',
      header: ['rows of the list read (as many more elsewhere)', 'list', 'spec answer (no paging)', 'first page (per_page=50)', 'page halfway down (cursor)'],
      rows,
    },
    { title: 'Scale: pruning webhook deliveries (keep newest 100 per webhook or younger than 7 days; all 30 days old)', header: ['rows per webhook read', 'deliveries in all', 'pruned', 'seconds', 'seconds per 100k pruned'], rows: prune },
  ];
  return { name: 'scale-lists', title: 'Lists at scale', tables, notes: ['pages are keyset pages over an index (docs/decisions/list-paging.md): the time of a page should not grow with the table'] };
}
