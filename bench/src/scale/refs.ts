import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSshKey } from '@githost/test-support';
import type { BenchContext } from '../context.js';
import { git, gitText } from '../git.js';
import { accepts } from '../listener.js';
import { manyBranches, SAME_SETTINGS } from '../many-refs.js';
import { startPlainGitHttp } from '../plain-git-http.js';
import { workDir } from '../paths.js';
import { waitForQuiet } from '../quiet.js';
import type { RunningService } from '../service.js';
import { gitSshEnv } from '../ssh.js';
import { AxisTable, medianOf } from './axis-table.js';
import { sized, type Ladder } from './ladder.js';
import { measurePages, timedGit, timedMerge } from './requests.js';
import type { SignedIn } from './signed-in.js';

const RUNS = 3;
/** One tag for every this many branches. */
const TAG_EVERY = 10;
/** How long the set-up waits for githost to go quiet after its push (the push's events handled). */
const QUIET_AFTER_SETUP_MS = 20 * 60_000;

/** Branches per push of the SSH set-up, 10,000: `b00*`, `b01*`, ... (manyBranches' names are 6 digits). */
const BATCH_PREFIX_DIGITS = 2;

/** How the set-up's push reaches githost. */
interface WayIn {
  name: 'SSH' | 'HTTP';
  url(repo: string): string;
  env?: Record<string, string>;
}

/**
 * The set-up's way in: githost's SSH service unless BENCH_SCALE_REFS_SETUP=http or nothing listens.
 * Over HTTP git's remote helper hands send-pack one refspec per ref of a `push --mirror`, each
 * matched against every local and remote ref (docs/decisions/many-refs-push.md#the-baseline):
 * 110,000 refs ran 40 minutes and were stopped, and batches of explicit refspecs stay quadratic
 * in the refs already pushed. Over SSH git pushes in-process and matches a pattern refspec once
 * per ref. The set-up pushes batches of 10,000 branches (and their tags) by name pattern, each
 * `--atomic`: git-storage records an SSH push's commands before git starts, so no hook runs per
 * ref either way (many-refs-push.md#over-ssh), but receive-pack commits a push that is not atomic
 * a ref transaction (and a ref fsync) at a time: 48 s against 23 s for 11,000 refs. The batches
 * bound what one push's events hold in git-storage. Every push still goes through githost
 * (receive-pack under its hooks, the intent record, one push event per ref).
 */
async function setUpWayIn(ctx: BenchContext, user: SignedIn, keyDir: string, log: (m: string) => void): Promise<WayIn> {
  const http: WayIn = { name: 'HTTP', url: (repo) => user.gitUrl(repo) };
  if (ctx.env.BENCH_SCALE_REFS_SETUP === 'http') return http;
  const port = ctx.sshPort;
  if (port === undefined || !(await accepts(port))) {
    log(`set-up over HTTP: nothing accepts on SSH_PORT ${port ?? '(unset)'}`);
    return http;
  }
  const key = await generateSshKey('ed25519', { comment: 'bench-scale@githost' });
  const keyFile = join(keyDir, 'id_ed25519');
  writeFileSync(keyFile, key.privateKey, { mode: 0o600 });
  const added = await user.api.request('POST', '/api/user/keys', { title: 'bench scale', key: key.publicKey });
  if (added.status !== 201) {
    log(`set-up over HTTP: registering the SSH key answered ${added.status} ${JSON.stringify(added.body)}`);
    return http;
  }
  return { name: 'SSH', url: (repo) => `ssh://git@127.0.0.1:${port}/${user.username}/${repo}.git`, env: gitSshEnv(keyFile) };
}

/** A commit adding `path` to `parent`'s tree (root level), so it merges cleanly with the chain's changes to f.txt. */
async function commitOnTop(dir: string, parent: string, path: string, time: number): Promise<string> {
  const blob = (await git(['hash-object', '-w', '--stdin'], { cwd: dir, input: `${path}\n` })).stdout.toString().trim();
  const entries = (await git(['ls-tree', '--end-of-options', parent], { cwd: dir })).stdout.toString();
  const tree = (await git(['mktree'], { cwd: dir, input: `${entries}100644 blob ${blob}\t${path}\n` })).stdout.toString().trim();
  const env = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_AUTHOR_DATE: `${time} +0000`, GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com', GIT_COMMITTER_DATE: `${time} +0000` };
  return (await git(['commit-tree', tree, '-p', parent, '-m', `add ${path}`], { cwd: dir, env })).stdout.toString().trim();
}

/** Pushes every branch and tag of `source` (n branches) to githost; the time it took. */
async function setUpPush(source: string, way: WayIn, repo: string, n: number): Promise<number> {
  if (way.name === 'HTTP') return timedGit(['push', '-q', '--mirror', way.url(repo)], source);
  const width = 6 - BATCH_PREFIX_DIGITS;
  let ms = 0;
  // In name order: b000* first, so each push sends only the commits the previous ones did not.
  for (let prefix = 0; prefix <= Math.floor(n / 10 ** width); prefix++) {
    const p = `b${String(prefix).padStart(BATCH_PREFIX_DIGITS, '0')}*`;
    ms += await timedGit(['push', '-q', '--atomic', way.url(repo), `refs/heads/${p}:refs/heads/${p}`, `refs/tags/t/${p}:refs/tags/t/${p}`], source, way.env);
  }
  return ms;
}

/**
 * 1k / 10k / 100k refs (many-refs' chain of commits with a branch on each, and a tag on every
 * tenth): ref lists, the ref switcher, a push of one commit and a push of 1k new refs (beside plain
 * git over file:// with githost's settings holding the same refs), merges.
 */
export async function refsAxis(ctx: BenchContext, ladder: Ladder, service: RunningService, user: SignedIn, views: number): Promise<AxisTable> {
  const labels = new Map(ladder.steps.map((s) => [s, `${sized(1_000, s, ladder).toLocaleString('en-US')} branches + ${Math.ceil(sized(1_000, s, ladder) / TAG_EVERY).toLocaleString('en-US')} tags`]));
  const table = new AxisTable('Refs and tags', labels);
  const newRefs = sized(1_000, 0, ladder);
  const keyDir = mkdtempSync(join(workDir('scratch'), 'scale-refs-key-'));
  const way = await setUpWayIn(ctx, user, keyDir, (m) => ctx.log(`scale refs: ${m}`));
  try {
    for (const step of ladder.steps) {
      const n = sized(1_000, step, ladder);
      const log = (m: string): void => ctx.log(`scale refs ${n}: ${m}`);
      const scratch = mkdtempSync(join(workDir('scratch'), 'scale-refs-'));
      try {
        const source = join(scratch, 'source');
        await manyBranches(source, n, TAG_EVERY);
        service.rss.reset();
        const name = `refs-${n}`;
        await user.api.expect(201, 'POST', '/api/repos', { name });
        const url = user.gitUrl(name);
        const setUp = await setUpPush(source, way, name, n);
        table.record(way.name === 'SSH' ? 'push of every ref over SSH, --atomic, 10,000 branches a push (set-up)' : 'push --mirror of every ref over HTTP (set-up)', 'none', step, { ms: setUp });
        // Its events (a push event per ref) are handled after git is answered: measure once they are.
        const settled = await waitForQuiet(service.pid, QUIET_AFTER_SETUP_MS);
        table.record('githost quiet after the set-up (its events handled; set-up)', 'none', step, { ms: settled });
        log(`set-up over ${way.name} ${(setUp / 1000).toFixed(1)} s, quiet ${(settled / 1000).toFixed(1)} s after`);
        const api = `/api/repos/${user.username}/${name}`;
        const web = `/${user.username}/${name}`;
        const tip = 'b' + String(n).padStart(6, '0');
        await measurePages(table, step, service.url, [
          { row: 'API: branches (every one, the spec answer)', path: `${api}/branches`, headers: user.bearer, target: 'answer' },
          { row: 'API: branches ?per_page=100', path: `${api}/branches?per_page=100`, headers: user.bearer, target: 'constant' },
          { row: 'API: tags (every one)', path: `${api}/tags`, headers: user.bearer, target: 'answer' },
          { row: 'API: tree root', path: `${api}/tree/${tip}`, headers: user.bearer, target: 'constant' },
          { row: 'web: repository home', path: web, headers: user.cookie, target: 'constant' },
          { row: 'web: branches page', path: `${web}/-/branches`, headers: user.cookie, target: 'constant' },
          { row: 'web: tags page', path: `${web}/-/tags`, headers: user.cookie, target: 'constant' },
          { row: 'web: ref switcher', path: `${web}/-/refs?view=tree&ref=${tip}`, headers: user.cookie, target: 'constant' },
        ], views, log);
        // The baseline: plain git with githost's settings holding the same refs, pushed over file://.
        const plain = join(scratch, 'plain.git');
        await git(['init', '-q', '--bare', plain]);
        for (const [k, v] of SAME_SETTINGS) await git(['config', k, v], { cwd: plain });
        await timedGit(['push', '-q', '--mirror', `file://${plain}`], source);
        // Held as githost holds them: its housekeeping packs the refs after a push
        // (docs/decisions/housekeeping.md); a file:// push leaves a loose file per ref, and
        // every later push's reads of 110,000 loose refs cost plain git seconds githost does not pay.
        await git(['pack-refs', '--all'], { cwd: plain });
        const first = await gitText(['rev-parse', 'refs/heads/b000001'], source);
        const plainOne: number[] = [];
        const ms = await medianOf(RUNS, async (i) => {
          const sha = await commitOnTop(source, first, `one-${i}.txt`, 1_800_000_000 + i);
          plainOne.push(await timedGit(['push', '-q', `file://${plain}`, `${sha}:refs/heads/one/${i}`], source));
          return timedGit(['push', '-q', url, `${sha}:refs/heads/one/${i}`], source);
        });
        table.record('push of one commit (new branch)', 'constant', step, { ms, baseline: plainOne.sort((a, b) => a - b)[Math.floor(RUNS / 2)]! });
        // The first views after those pushes: browse's ref snapshot, read above, is moved in place
        // by each ref change (docs/decisions/many-refs-push.md#the-refs-cache), not read whole again.
        await measurePages(table, step, service.url, [
          { row: 'API: branches ?per_page=100, after a push of one commit', path: `${api}/branches?per_page=100`, headers: user.bearer, target: 'constant' },
          { row: 'web: ref switcher, after a push of one commit', path: `${web}/-/refs?view=tree&ref=${tip}`, headers: user.cookie, target: 'constant' },
        ], views, log);
        // The same new refs under three prefixes, one per way in: new/ over githost's HTTP (the merges
        // below use it), new-http/ to plain git's http-backend, new-ssh/ over githost's SSH.
        const created = ['new', 'new-http', 'new-ssh'].flatMap((p) => Array.from({ length: newRefs }, (_, i) => `create refs/heads/${p}/${String(i).padStart(6, '0')} ${first}\n`));
        await git(['update-ref', '--stdin'], { cwd: source, input: created.join('') });
        const pushNew = (prefix: string, to: string, env?: Record<string, string>) => timedGit(['push', '-q', to, `refs/heads/${prefix}/*:refs/heads/${prefix}/*`], source, env);
        const plainNew = await pushNew('new', `file://${plain}`);
        // Over smart HTTP git's remote helper hands send-pack one refspec per new ref, each matched
        // against every local ref (many-refs-push.md#the-baseline): a cost of git's client that grows
        // with the refs already there, whoever answers; plain git over HTTP pays it too.
        await git(['config', 'http.receivepack', 'true'], { cwd: plain });
        const plainHttp = await startPlainGitHttp(scratch);
        let plainNewHttp: number;
        try {
          plainNewHttp = await pushNew('new-http', `${plainHttp.url}/plain.git`);
        } finally {
          await plainHttp.stop();
        }
        const rowNew = `push of ${newRefs.toLocaleString('en-US')} new refs`;
        const hostNew = await pushNew('new', url);
        table.record(`${rowNew} over HTTP`, 'constant', step, { ms: hostNew, baseline: plainNew });
        table.record(`${rowNew} over HTTP, beside plain git over HTTP`, 'none', step, { ms: hostNew, baseline: plainNewHttp, baselineName: 'http-backend' });
        if (way.name === 'SSH') table.record(`${rowNew} over SSH`, 'constant', step, { ms: await pushNew('new-ssh', way.url(name), way.env), baseline: plainNew });
        // b000002 is one commit past b000001 (new/<i>): a fast-forward. near/<i> adds a file on the
        // commit below one of the chain's last tips, merged into that tip: three-way, its merge base
        // one commit down whatever the ref count (as the history axis's pairs off the tip). one/<i>
        // adds a file on the chain's first commit: the same merge with its base at the chain's root,
        // as many commits down as there are branches, so that row grows with the history the
        // fixture puts under its refs, not with the refs. Needs n >= 4.
        const tipOf = (k: number): string => `b${String(k).padStart(6, '0')}`;
        const near = await Promise.all(Array.from({ length: RUNS }, async (_, i) => commitOnTop(source, await gitText(['rev-parse', `refs/heads/${tipOf(n - i - 1)}`], source), `near-${i}.txt`, 1_800_000_100 + i)));
        await git(['update-ref', '--stdin'], { cwd: source, input: near.map((sha, i) => `create refs/heads/near/${i} ${sha}\n`).join('') });
        await git(['push', '-q', url, 'refs/heads/near/*:refs/heads/near/*'], { cwd: source });
        const ff = await medianOf(RUNS, async (i) => (await timedMerge(user, name, tipOf(2 + i), `new/${String(i).padStart(6, '0')}`)).ms);
        table.record(`merge, fast-forward (API, median of ${RUNS})`, 'constant', step, { ms: ff });
        const threeWay = await medianOf(RUNS, async (i) => (await timedMerge(user, name, `near/${i}`, tipOf(n - i))).ms);
        table.record(`merge, three-way (API, median of ${RUNS})`, 'constant', step, { ms: threeWay });
        const deep = await medianOf(RUNS, async (i) => (await timedMerge(user, name, `one/${i}`, tipOf(n - RUNS - i))).ms);
        table.record(`merge, three-way, its base at the chain's root (API, median of ${RUNS})`, 'none', step, { ms: deep });
        log(`merges: fast-forward ${ff.toFixed(0)} ms, three-way ${threeWay.toFixed(0)} ms, three-way from the root ${deep.toFixed(0)} ms`);
      } catch (err) {
        table.failed('refs axis', step, err);
      } finally {
        table.recordRss(step, service.rss.read());
        rmSync(scratch, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(keyDir, { recursive: true, force: true });
  }
  return table;
}
