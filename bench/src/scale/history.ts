import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { warmPageCache } from '../clone-push.js';
import type { BenchContext } from '../context.js';
import { ensureRepo, type GeneratedRepo } from '../generate-repo.js';
import { gitText } from '../git.js';
import { hostedRepoPath } from '../hosted-path.js';
import { buildMergeFixtures } from '../merge-fixtures.js';
import { DEFAULT_PARAMS, type RepoParams } from '../params.js';
import { workDir } from '../paths.js';
import { waitForQuiet } from '../quiet.js';
import type { RunningService } from '../service.js';
import { AxisTable, medianOf } from './axis-table.js';
import { sized, type Ladder } from './ladder.js';
import { measurePages, timedGit, timedMerge, type Page } from './requests.js';
import type { SignedIn } from './signed-in.js';

/** The "MR detail with 5,000 changed files", divided with the ladder. */
const BIG_DIFF = 5_000;
const SMALL_DIFF = 10;
const RUNS = 3;
/** HOUSEKEEPING_DELAY_MS's default (2 s, docs/decisions/housekeeping.md) and a second more: a
 *  service idle before its housekeeping started would read as settled. */
const BEFORE_HOUSEKEEPING_MS = 3_000;
/** The longest housekeeping after a set-up push is waited for: at 1M commits its steps take
 *  minutes each (the commit-graph's filters about six). */
const HOUSEKEEPING_WAIT_MS = 30 * 60_000;

/** The history axis's repository: only the length of history changes from step to step. */
export function historyParams(step: number, ladder: Ladder): RepoParams {
  const files = Math.max(200, sized(BIG_DIFF + 1_000, 0, ladder));
  return {
    ...DEFAULT_PARAMS,
    commits: sized(10_000, step, ladder),
    files,
    maxRegularBlob: 16 * 1024,
    bigFiles: 1,
    maxBlob: 1024 * 1024,
    wideEntries: Math.min(DEFAULT_PARAMS.wideEntries, Math.floor(files / 10)),
    diffSizes: [SMALL_DIFF, sized(BIG_DIFF, 0, ladder)],
  };
}

/**
 * Repository history at 10k / 100k / 1M commits (a merged side branch every 1,000, the generator's
 * shape): browse rows at the tip and 90 % down, compare across the history, merge requests,
 * merges, a push of one commit and a clone against `git clone file://`.
 */
export async function historyAxis(ctx: BenchContext, ladder: Ladder, service: RunningService, user: SignedIn, views: number): Promise<AxisTable> {
  const labels = new Map(ladder.steps.map((s) => [s, `${sized(10_000, s, ladder).toLocaleString('en-US')} commits`]));
  const table = new AxisTable('Repository history', labels);
  for (const step of ladder.steps) {
    try {
      const repo = await ensureRepo(historyParams(step, ladder), { log: (m) => ctx.log(`scale history: ${m}`) });
      service.rss.reset();
      const name = `hist-${repo.commits}`;
      const { id } = await user.api.expect<{ id: string }>(201, 'POST', '/api/repos', { name });
      const log = (m: string): void => ctx.log(`scale history ${labels.get(step)}: ${m}`);
      table.record('push --mirror of the whole repository (set-up)', 'none', step, { ms: await timedGit(['push', '-q', '--mirror', user.gitUrl(name)], repo.path) });
      // The rows read the repository as githost keeps it once the push's housekeeping is done
      // (commit-graph with filters, bitmap where the budget has room), as a repository that has
      // been there a while is; measured beside it, every row at 1M commits was loaded by it.
      table.record("githost busy with the set-up push's housekeeping (waited for)", 'none', step, { ms: await settled(service) });
      table.record(`git: the compare's answer (${COMPARE_BY_GIT.length} commands), v0.1...main on githost's copy after the push`, 'none', step, { ms: await compareByGit(hostedRepoPath(service.dataDir, id, repo.path)) });
      await measurePages(table, step, service.url, await historyPages(user, name, repo), views, log);
      await mergesAndPushes(table, step, user, name, repo, log);
      await clone(table, step, user, name, repo);
    } catch (err) {
      table.failed('this size', step, err);
    }
    table.recordRss(step, service.rss.read());
  }
  return table;
}

/** Time from the end of a push until githost and its gits are idle again: its housekeeping. */
async function settled(service: RunningService): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, BEFORE_HOUSEKEEPING_MS));
  return BEFORE_HOUSEKEEPING_MS + (await waitForQuiet(service.pid, HOUSEKEEPING_WAIT_MS));
}

/**
 * What git itself costs for the API's `compare/v0.1...main` answer (merge base, both counts, head's
 * commits), one command after another on githost's own copy just before the first (cold) compare,
 * on the same commit-graph as the service's walks.
 */
const COMPARE_BY_GIT: string[][] = [
  ['merge-base', 'v0.1', 'main'],
  ['rev-list', '--left-right', '--count', 'v0.1...main'],
  ['rev-list', '--reverse', 'main', '^v0.1'],
];

async function compareByGit(gitDir: string): Promise<number> {
  let ms = 0;
  for (const args of COMPARE_BY_GIT) ms += await timedGit(['--git-dir', gitDir, ...args]);
  return ms;
}

async function historyPages(user: SignedIn, name: string, repo: GeneratedRepo): Promise<Page[]> {
  const firstParents = Number(await gitText(['rev-list', '--first-parent', '--count', 'refs/heads/main'], repo.path));
  const down90 = await gitText(['rev-parse', '--verify', '--end-of-options', `refs/heads/main~${Math.floor(firstParents * 0.9)}`], repo.path);
  const small = repo.diffBranches.find((d) => d.files === SMALL_DIFF)?.branch ?? repo.diffBranches[0]!.branch;
  const big = repo.diffBranches[repo.diffBranches.length - 1]!;
  const mrs = `/api/repos/${user.username}/${name}/merge-requests`;
  const smallMr = await user.api.expect<{ number: number }>(201, 'POST', mrs, { title: 'Small diff', source_branch: small, target_branch: 'main' });
  const bigMr = await user.api.expect<{ number: number }>(201, 'POST', mrs, { title: 'Big diff', source_branch: big.branch, target_branch: 'main' });
  const api = `/api/repos/${user.username}/${name}`;
  const web = `/${user.username}/${name}`;
  const { deepDir, blob10k } = repo.known;
  const both = (row: string, apiPath: string, webPath: string | undefined, target: Page['target'] = 'constant'): Page[] => [
    { row: `API: ${row}`, path: api + apiPath, headers: user.bearer, target },
    ...(webPath === undefined ? [] : [{ row: `web: ${row}`, path: web + webPath, headers: user.cookie, target }]),
  ];
  return [
    ...both('tree root', '/tree/main', ''),
    ...both(`deep tree (${deepDir})`, `/tree/main/${deepDir}`, `/-/tree/main/${deepDir}`),
    ...both('blob (10 KiB)', `/blob/main/${blob10k}`, `/-/blob/main/${blob10k}`),
    ...both('commits limit=100 at the tip', '/commits/main?limit=100', '/-/commits/main'),
    ...both('commits limit=100 90 % down the history', `/commits/${down90}?limit=100`, `/-/commits/${down90}`),
    ...both('commit', `/commit/${repo.head}`, `/-/commit/${repo.head}`),
    // v0.1 is 10 % into the history: the answer holds what lies between, so it may grow with it.
    ...both('compare v0.1...main', '/compare/v0.1...main', '/-/compare?base=v0.1&head=main', 'answer'),
    ...both('branches', '/branches', '/-/branches'),
    ...both('tags', '/tags', '/-/tags'),
    { row: 'web: ref switcher', path: `${web}/-/refs?view=tree&ref=main`, headers: user.cookie, target: 'constant' },
    ...both(`MR detail (${SMALL_DIFF} files)`, `/merge-requests/${smallMr.number}`, `/-/merge-requests/${smallMr.number}`),
    ...both(`MR detail (${big.files.toLocaleString('en-US')} files)`, `/merge-requests/${bigMr.number}`, `/-/merge-requests/${bigMr.number}`),
    ...both('MR list (open)', '/merge-requests?state=open', '/-/merge-requests'),
  ];
}

/** merge-fixtures' pairs off the main tip: each fast-forward source pushed alone is "a push of one
 *  commit"; then fast-forward and three-way merges through the API. */
async function mergesAndPushes(table: AxisTable, step: number, user: SignedIn, name: string, repo: GeneratedRepo, log: (m: string) => void): Promise<void> {
  const scratch = mkdtempSync(join(workDir('scratch'), 'scale-merges-'));
  try {
    const fixtures = join(scratch, 'fixtures.git');
    const pairs = await buildMergeFixtures(repo, fixtures, RUNS);
    const ff = pairs.filter((p) => p.kind === 'ff');
    const threeWay = pairs.filter((p) => p.kind === 'three-way');
    const url = user.gitUrl(name);
    // The same pushes into plain git (a bare copy sharing the generated objects, over file://):
    // what the client's own side costs next to githost's. The client pushes as from a working
    // clone, which has no bitmap: the generated pack's would make its pack-objects load it, 1.2 s
    // of a 1.4 s push at 1M commits against 0.17 s without (docs/decisions/history-depth.md#pushes).
    const plain = join(scratch, 'plain.git');
    await timedGit(['clone', '-q', '--bare', '--shared', repo.path, plain]);
    const pushOne = (target: string) => (i: number) => timedGit(['-c', 'push.useBitmaps=false', 'push', '-q', target, `refs/heads/${ff[i]!.source}:refs/heads/${ff[i]!.source}`], fixtures);
    const baseline = await medianOf(RUNS, pushOne(`file://${plain}`));
    const push = await medianOf(RUNS, pushOne(url));
    table.record('push of one commit (new branch off main)', 'constant', step, { ms: push, baseline });
    // What the server side adds over plain git for the same client and push: the client's own
    // pack-objects is in both and cancels out (docs/decisions/history-depth.md#pushes). Shown
    // beside the row above, not instead of it.
    table.record("push of one commit: githost's time over plain git's", 'none', step, { ms: push - baseline });
    await timedGit(['push', '-q', url, 'refs/heads/bench/*:refs/heads/bench/*'], fixtures);
    for (const [row, list] of [['merge, fast-forward', ff], ['merge, three-way', threeWay]] as const) {
      const ms = await medianOf(RUNS, async (i) => (await timedMerge(user, name, list[i]!.source, list[i]!.target)).ms);
      table.record(`${row} (API, median of ${RUNS})`, 'constant', step, { ms });
      log(`${row}: ${ms.toFixed(0)} ms`);
    }
  } catch (err) {
    table.failed('merges and pushes', step, err);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `git clone --no-checkout` through the gateway against `file://` of the generated repository. */
async function clone(table: AxisTable, step: number, user: SignedIn, name: string, repo: GeneratedRepo): Promise<void> {
  const scratch = mkdtempSync(join(workDir('scratch'), 'scale-clone-'));
  try {
    await warmPageCache(repo.path);
    const raw = await timedGit(['clone', '-q', '--no-checkout', `file://${repo.path}`, join(scratch, 'raw')]);
    const hosted = await timedGit(['clone', '-q', '--no-checkout', user.gitUrl(name), join(scratch, 'hosted')]);
    table.record('clone --no-checkout (githost HTTP)', 'clone', step, { ms: hosted, baseline: raw });
  } catch (err) {
    table.failed('clone', step, err);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
