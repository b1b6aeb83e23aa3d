import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Database } from '@githost/db';
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
 * run's database by scale-lists' generators. Lists, detail, delivery log, activity, home page.
 */
export async function siteAxis(ctx: BenchContext, ladder: Ladder, service: RunningService, views: number): Promise<AxisTable> {
  const labels = new Map(ladder.steps.map((s) => {
    const z = siteSizes(s, ladder);
    return [s, `${z.repos.toLocaleString('en-US')} repos, ${z.mergeRequests.toLocaleString('en-US')} MRs, ${z.deliveries.toLocaleString('en-US')} deliveries, ${z.activities.toLocaleString('en-US')} activities`];
  }));
  const table = new AxisTable('Site', labels);
  if (!ctx.databaseUrl) {
    table.failed('site axis', ladder.steps[0]!, new Error('needs the run\'s Postgres database (not BENCH_EMBEDDED=1)'));
    return table;
  }
  const mrDb = await openDatabase({ url: ctx.databaseUrl, schema: 'merge_requests' });
  const hookDb = await openDatabase({ url: ctx.databaseUrl, schema: 'webhooks' });
  const accountsDb = await openDatabase({ url: ctx.databaseUrl, schema: 'accounts' });
  try {
    for (const step of ladder.steps) {
      const z = siteSizes(step, ladder);
      const log = (m: string): void => ctx.log(`scale site ${labels.get(step)}: ${m}`);
      try {
        service.rss.reset();
        const owner = await signIn(service, 'own');
        await manyRepositories(service, owner, z.repos, log);
        // The thousands of users and repositories just made through the API in a few minutes would
        // be analysed by Postgres's autovacuum within its minute's nap; a run whose Postgres has it
        // off (this machine's CI setting) would read plans made without statistics instead
        // (bench/RESULTS.md#2026-11-30-late-the-site-axis-with-statistics).
        await accountsDb.query('ANALYZE users, repositories, owner_counts');
        const { repo, hook } = await seededRepository(owner, mrDb, hookDb, z, log);
        const api = `/api/repos/${owner.username}/${repo}`;
        const web = `/${owner.username}/${repo}`;
        const newest = z.mergeRequests + 1;
        await measurePages(table, step, service.url, [
          ...STATES.map((s) => ({ row: `API: MR list (${s})`, path: `${api}/merge-requests?state=${s}`, headers: owner.bearer, target: 'constant' as const })),
          ...STATES.map((s) => ({ row: `web: MR list (${s})`, path: `${web}/-/merge-requests${s === 'open' ? '' : `?state=${s}`}`, headers: owner.cookie, target: 'constant' as const })),
          { row: 'API: MR detail (small diff)', path: `${api}/merge-requests/${newest}`, headers: owner.bearer, target: 'constant' },
          { row: 'web: MR detail (small diff)', path: `${web}/-/merge-requests/${newest}`, headers: owner.cookie, target: 'constant' },
          { row: 'API: webhook delivery log', path: `${api}/webhooks/${hook}/deliveries`, headers: owner.bearer, target: 'constant' },
          { row: 'web: webhook page (delivery log)', path: `${web}/-/settings/webhooks/${hook}`, headers: owner.cookie, target: 'constant' },
          { row: 'API: activity', path: `${api}/activity`, headers: owner.bearer, target: 'constant' },
          { row: "API: the user's repositories", path: '/api/user/repos', headers: owner.bearer, target: 'constant' },
          { row: "web: the user's page (repositories)", path: `/${owner.username}`, headers: owner.cookie, target: 'constant' },
          { row: 'web: home page, signed in', path: '/', headers: owner.cookie, target: 'constant' },
          { row: 'web: explore (every repository)', path: '/-/explore', headers: owner.cookie, target: 'constant' },
          { row: 'web: explore users', path: '/-/explore/users', headers: owner.cookie, target: 'constant' },
        ], views, log);
      } catch (err) {
        table.failed('site axis', step, err);
      } finally {
        table.recordRss(step, service.rss.read());
      }
    }
  } finally {
    await mrDb.close();
    await hookDb.close();
    await accountsDb.close();
  }
  return table;
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

/** A repository with `main` and `feature` (ten files apart), its table rows written in bulk, one
 *  real merge request on top (the newest, whose detail is read) and a webhook. */
async function seededRepository(owner: SignedIn, mrDb: Database, hookDb: Database, z: SiteSizes, log: (m: string) => void): Promise<{ repo: string; hook: string }> {
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
  await insertMergeRequests(mrDb, z.mergeRequests, [id], STATES);
  await mrDb.query(`INSERT INTO merge_request_comments (mr_id, author_id, body) SELECT id, NULL, 'Looks right to me.' FROM merge_requests WHERE repo_id = $1`, [id]);
  await mrDb.query(`INSERT INTO merge_request_reviews (mr_id, author_id, state, body, commit_sha, reviewer_permission) SELECT id, NULL, 'commented', 'Reviewed.', source_sha, 'write' FROM merge_requests WHERE repo_id = $1`, [id]);
  // The next number the service gives is the highest + 1 (api spec §2): its counter row says so.
  await mrDb.query('INSERT INTO merge_request_counters (repo_id, last_number) VALUES ($1, $2) ON CONFLICT (repo_id) DO UPDATE SET last_number = EXCLUDED.last_number', [id, z.mergeRequests]);
  await insertActivity(mrDb, z.activities, [id]);
  for (const t of ['merge_requests', 'merge_request_comments', 'merge_request_reviews', 'activity']) await mrDb.query(`ANALYZE ${t}`);
  const mr = await owner.api.expect<{ number: number }>(201, 'POST', `/api/repos/${owner.username}/${repo}/merge-requests`, { title: 'Ten files', source_branch: 'feature', target_branch: 'main' });
  await owner.api.expect(201, 'POST', `/api/repos/${owner.username}/${repo}/merge-requests/${mr.number}/comments`, { body: 'A comment.' });
  const hook = await owner.api.expect<{ id: string }>(201, 'POST', `/api/repos/${owner.username}/${repo}/webhooks`, { url: 'http://127.0.0.1:9/hook' });
  // One second apart up to a minute ago. Up to 604,800 rows stay younger than the retention's 7 days
  // (docs/decisions/list-paging.md#retention); at 1M the oldest become prunable.
  await insertDeliveries(hookDb, z.deliveries, hook.id, [], `${z.deliveries + 60} seconds`);
  await hookDb.query('ANALYZE deliveries');
  log(`seeded ${z.mergeRequests} merge requests (#${mr.number} real), ${z.activities} activities, ${z.deliveries} deliveries`);
  return { repo, hook: hook.id };
}
