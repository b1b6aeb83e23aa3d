import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, shareEmbeddedDatabase, type Database } from '@githost/db';
import { Api } from '../api.js';
import { bigRepository } from '../big-pages.js';
import type { BenchContext } from '../context.js';
import { git } from '../git.js';
import { workDir } from '../paths.js';
import { insertActivity, insertDeliveries, insertMergeRequests } from '../scale-lists.js';
import type { RunningService } from '../service.js';
import { AxisTable } from './axis-table.js';
import { sized, type Ladder } from './ladder.js';
import { inParallel, measurePages, QUIET_GIT, timedGit } from './requests.js';
import { signIn, type SignedIn } from './signed-in.js';

const STATES = ['open', 'merged', 'closed'];
/** Repositories and users are made through the API, this many requests at once. */
const WIDTH = 8;

interface SiteSizes {
  repos: number;
  mergeRequests: number;
  deliveries: number;
  activities: number;
}

export function siteSizes(step: number, ladder: Ladder): SiteSizes {
  return { repos: sized(100, step, ladder), mergeRequests: sized(1_000, step, ladder), deliveries: sized(10_000, step, ladder), activities: sized(10_000, step, ladder) };
}

/**
 * The site at 100 / 1k / 10k repositories (one user owning them all, and as many users with one
 * each, made through the API), and in one repository 1k / 10k / 100k merge requests (a third each
 * open, merged, closed; each with a comment and a review), 10k / 100k / 1M deliveries of one
 * webhook with their attempts and 10k / 100k / 1M activities, written with SQL in bulk into the
 * run's database by scale-lists' generators (in the embedded mode, `BENCH_EMBEDDED=1`, into
 * githost's own PGlite while it is stopped). Lists, detail, delivery log, activity, home page.
 */
export async function siteAxis(ctx: BenchContext, ladder: Ladder, service: RunningService, views: number): Promise<AxisTable> {
  const labels = new Map(ladder.steps.map((s) => {
    const z = siteSizes(s, ladder);
    return [s, `${z.repos.toLocaleString('en-US')} repos, ${z.mergeRequests.toLocaleString('en-US')} MRs, ${z.deliveries.toLocaleString('en-US')} deliveries, ${z.activities.toLocaleString('en-US')} activities`];
  }));
  const table = new AxisTable(ctx.embedded ? 'Site (embedded: PGlite, one process)' : 'Site', labels);
  const tables = ctx.databaseUrl ? await serverTables(ctx.databaseUrl) : embeddedTables(service);
  try {
    for (const step of ladder.steps) {
      const z = siteSizes(step, ladder);
      const log = (m: string): void => ctx.log(`scale site ${labels.get(step)}: ${m}`);
      try {
        service.rss.reset();
        const owner = await signIn(service, 'own');
        await manyRepositories(service, owner, z.repos, log);
        const lists = await listsRepository(owner);
        await tables.write((dbs) => seedTables(dbs, lists, z, log));
        const watch = async (forMs: number, after: string, why: string): Promise<void> => {
          if (!tables.restarts) return;
          const held = await longestWait(service.url, forMs);
          table.record(`embedded: longest /healthz wait in the ${forMs / 1000} s after the ${after} (${why})`, 'none', step, { ms: held });
          log(`longest /healthz wait after the ${after}: ${held.toFixed(1)} ms`);
        };
        await watch(FIRST_UPKEEP_WATCH_MS, 'restart', `asked every ${WATCH_SLEEP_MS} ms; the first upkeep pass at 60 s`);
        const newest = await realMergeRequest(owner, lists.repo);
        const api = `/api/repos/${owner.username}/${lists.repo}`;
        const web = `/${owner.username}/${lists.repo}`;
        await measurePages(table, step, service.url, [
          ...STATES.map((s) => ({ row: `API: MR list (${s})`, path: `${api}/merge-requests?state=${s}`, headers: owner.bearer, target: 'constant' as const })),
          ...STATES.map((s) => ({ row: `web: MR list (${s})`, path: `${web}/-/merge-requests${s === 'open' ? '' : `?state=${s}`}`, headers: owner.cookie, target: 'constant' as const })),
          { row: 'API: MR detail (small diff)', path: `${api}/merge-requests/${newest}`, headers: owner.bearer, target: 'constant' },
          { row: 'web: MR detail (small diff)', path: `${web}/-/merge-requests/${newest}`, headers: owner.cookie, target: 'constant' },
          { row: 'API: webhook delivery log', path: `${api}/webhooks/${lists.hook}/deliveries`, headers: owner.bearer, target: 'constant' },
          { row: 'web: webhook page (delivery log)', path: `${web}/-/settings/webhooks/${lists.hook}`, headers: owner.cookie, target: 'constant' },
          { row: 'API: activity', path: `${api}/activity`, headers: owner.bearer, target: 'constant' },
          { row: "API: the user's repositories", path: '/api/user/repos', headers: owner.bearer, target: 'constant' },
          { row: "web: the user's page (repositories)", path: `/${owner.username}`, headers: owner.cookie, target: 'constant' },
          { row: 'web: home page, signed in', path: '/', headers: owner.cookie, target: 'constant' },
          { row: 'web: explore (every repository)', path: '/-/explore', headers: owner.cookie, target: 'constant' },
          { row: 'web: explore users', path: '/-/explore/users', headers: owner.cookie, target: 'constant' },
        ], views, log);
        await watch(AFTER_ROWS_WATCH_MS, 'rows', "retention's pass ends; the upkeep vacuums what it deleted");
      } catch (err) {
        table.failed('site axis', step, err);
      } finally {
        table.recordRss(step, service.rss.read());
      }
    }
  } finally {
    await tables.close();
  }
  return table;
}

/** The schemas the axis writes in bulk. */
interface SiteDatabases {
  mergeRequests: Database;
  webhooks: Database;
  accounts: Database;
}

/** Where the axis's rows are written with SQL. */
interface SiteTables {
  write(fn: (dbs: SiteDatabases) => Promise<void>): Promise<void>;
  /** Whether a write restarts githost (its caches are cold after it). */
  readonly restarts: boolean;
  close(): Promise<void>;
}

/** The run's Postgres, written beside the running githost. */
async function serverTables(url: string): Promise<SiteTables> {
  const dbs: SiteDatabases = {
    mergeRequests: await openDatabase({ url, schema: 'merge_requests' }),
    webhooks: await openDatabase({ url, schema: 'webhooks' }),
    accounts: await openDatabase({ url, schema: 'accounts' }),
  };
  return {
    write: (fn) => fn(dbs),
    restarts: false,
    close: async () => {
      for (const db of Object.values(dbs)) await db.close();
    },
  };
}

/**
 * The embedded githost's own PGlite (`DATA_DIR/db/shared`, docs/embedded-mode.md), which only one
 * process can hold: githost is stopped, the rows written, and githost started again on the same
 * data, as an operator's bulk import would be. Opened as the launcher opens it, each schema on the
 * shared instance.
 */
function embeddedTables(service: RunningService): SiteTables {
  const dbDir = join(service.dataDir, 'db');
  return {
    write: (fn) =>
      service.restart(async () => {
        const shared = shareEmbeddedDatabase(join(dbDir, 'shared'));
        const opened: Database[] = [];
        const open = async (schema: string): Promise<Database> => {
          const db = await openDatabase({ dataDir: join(dbDir, schema), schema });
          opened.push(db);
          return db;
        };
        try {
          await fn({ mergeRequests: await open('merge_requests'), webhooks: await open('webhooks'), accounts: await open('accounts') });
        } finally {
          for (const db of opened) await db.close();
          await shared.close();
        }
      }),
    restarts: true,
    close: async () => undefined,
  };
}

/** The embedded githost's upkeep makes its first pass a minute after the start (packages/db/src/upkeep.ts). */
const FIRST_UPKEEP_WATCH_MS = 80_000;

/** Retention's first pass starts a minute after the start too (services/webhooks/src/server.ts)
 *  and at the largest size works through 400,000 expired deliveries while the rows are read; the
 *  upkeep's pass after it vacuums them (docs/decisions/database-upkeep.md#what-a-pass-holds). The
 *  upkeep runs every minute, so this reaches past its next two passes. */
const AFTER_ROWS_WATCH_MS = 150_000;

/** How long the watch sleeps between two `/healthz`. A hold of the thread that starts in the sleep
 *  is seen shortened by what was left of it, and one shorter than the sleep can be missed: at 100 ms
 *  (until 2026-12-02) an upkeep `ANALYZE` that held the thread 86 ms read as a 60 ms wait. Asked back
 *  to back, the watch would take half a core from the process it watches. */
const WATCH_SLEEP_MS = 10;

/** The longest a `/healthz` waited for its answer, asked every WATCH_SLEEP_MS for `forMs`: in the
 *  embedded mode every service and the database share one event loop, so this is what any request waited. */
async function longestWait(url: string, forMs: number): Promise<number> {
  const until = Date.now() + forMs;
  let longest = 0;
  while (Date.now() < until) {
    const t0 = performance.now();
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(30_000) });
    await res.arrayBuffer();
    longest = Math.max(longest, performance.now() - t0);
    await new Promise((r) => setTimeout(r, WATCH_SLEEP_MS));
  }
  return longest;
}

/** `count` repositories of `owner`, and `count` users with one repository each (the site grows by both). */
async function manyRepositories(service: RunningService, owner: SignedIn, count: number, log: (m: string) => void): Promise<void> {
  const admin = new Api(service.url, service.adminToken);
  const names = Array.from({ length: count }, (_, i) => `r${String(i).padStart(6, '0')}`);
  await inParallel(names, WIDTH, (name) => owner.api.expect(201, 'POST', '/api/repos', { name }));
  const users = names.map((n) => `${owner.username}-u${n}`);
  await inParallel(users, WIDTH, async (username) => {
    await admin.expect(201, 'POST', '/api/admin/users', { username, email: `${username}@bench.example` });
    await admin.expect(201, 'POST', '/api/repos', { name: 'one', owner: username });
  });
  log(`${count} repositories of one user and ${count} users with one each made`);
}

/** A repository with `main` and `feature` (ten files apart) and a webhook: the one whose lists are read. */
async function listsRepository(owner: SignedIn): Promise<{ repo: string; id: string; hook: string }> {
  const repo = 'lists';
  const { id } = await owner.api.expect<{ id: string }>(201, 'POST', '/api/repos', { name: repo });
  const scratch = mkdtempSync(join(workDir('scratch'), 'scale-site-'));
  try {
    await git(['init', '-q', '--bare'], { cwd: scratch, env: QUIET_GIT });
    await git(['fast-import', '--quiet', '--done'], { cwd: scratch, env: QUIET_GIT, input: bigRepository(10, 10, 0) });
    await timedGit(['push', '-q', owner.gitUrl(repo), 'main', 'feature'], scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const hook = await owner.api.expect<{ id: string }>(201, 'POST', `/api/repos/${owner.username}/${repo}/webhooks`, { url: 'http://127.0.0.1:9/hook' });
  return { repo, id, hook: hook.id };
}

/** The repository's merge requests, activities and deliveries, written in bulk and analysed, as
 *  are the users and repositories just made through the API. */
async function seedTables(dbs: SiteDatabases, lists: { id: string; hook: string }, z: SiteSizes, log: (m: string) => void): Promise<void> {
  // The thousands of users and repositories made through the API in a few minutes would be
  // analysed by Postgres's autovacuum within its minute's nap (or the embedded upkeep's); a run
  // whose Postgres has it off (this machine's CI setting) would read plans made without
  // statistics instead (bench/RESULTS.md#2026-11-30-late-the-site-axis-with-statistics).
  await dbs.accounts.query('ANALYZE users, repositories, owner_counts');
  const mrDb = dbs.mergeRequests;
  await insertMergeRequests(mrDb, z.mergeRequests, [lists.id], STATES);
  await mrDb.query(`INSERT INTO merge_request_comments (mr_id, author_id, body) SELECT id, NULL, 'Looks right to me.' FROM merge_requests WHERE repo_id = $1`, [lists.id]);
  await mrDb.query(`INSERT INTO merge_request_reviews (mr_id, author_id, state, body, commit_sha, reviewer_permission) SELECT id, NULL, 'commented', 'Reviewed.', source_sha, 'write' FROM merge_requests WHERE repo_id = $1`, [lists.id]);
  // The next number the service gives is the highest + 1 (api spec §2): its counter row says so.
  await mrDb.query('INSERT INTO merge_request_counters (repo_id, last_number) VALUES ($1, $2) ON CONFLICT (repo_id) DO UPDATE SET last_number = EXCLUDED.last_number', [lists.id, z.mergeRequests]);
  await insertActivity(mrDb, z.activities, [lists.id]);
  for (const t of ['merge_requests', 'merge_request_comments', 'merge_request_reviews', 'activity']) await mrDb.query(`ANALYZE ${t}`);
  // One second apart up to a minute ago. Up to 604,800 rows stay younger than the retention's 7 days
  // (docs/decisions/list-paging.md#retention); at 1M the oldest become prunable.
  await insertDeliveries(dbs.webhooks, z.deliveries, lists.hook, [], `${z.deliveries + 60} seconds`);
  await dbs.webhooks.query('ANALYZE deliveries');
  log(`seeded ${z.mergeRequests} merge requests, ${z.activities} activities, ${z.deliveries} deliveries`);
}

/** One real merge request on top of the written ones (the newest, whose detail is read), with a comment. */
async function realMergeRequest(owner: SignedIn, repo: string): Promise<number> {
  const mr = await owner.api.expect<{ number: number }>(201, 'POST', `/api/repos/${owner.username}/${repo}/merge-requests`, { title: 'Ten files', source_branch: 'feature', target_branch: 'main' });
  await owner.api.expect(201, 'POST', `/api/repos/${owner.username}/${repo}/merge-requests/${mr.number}/comments`, { body: 'A comment.' });
  return mr.number;
}
