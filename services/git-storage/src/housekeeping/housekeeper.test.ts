import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@githost/logging';
import { gitRunning } from '../testing.js';
import { commitGraphState, readCommitGraph } from './commit-graph-layers.js';
import { Housekeeper } from './housekeeper.js';
import { BYTES_PER_COMMIT, BYTES_PER_OBJECT, DELTA_BASE_CACHE_BYTES } from './memory-budget.js';

let root: string;
let repo: string;
const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
const g = (...args: string[]) => execFileSync('git', [`--git-dir=${repo}`, ...args], { env }).toString().trim();

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'githost-hk-'));
  repo = path.join(root, 'r.git');
  execFileSync('git', ['init', '-q', '--bare', repo], { env });
  let parent: string | undefined;
  for (let i = 0; i < 5; i++) {
    const blob = execFileSync('git', [`--git-dir=${repo}`, 'hash-object', '-w', '--stdin'], { input: `file ${i}\n`, env }).toString().trim();
    const tree = execFileSync('git', [`--git-dir=${repo}`, 'mktree'], { input: `100644 blob ${blob}\tf.txt\n`, env }).toString().trim();
    parent = g('commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', `c${i}`);
    g('update-ref', `refs/heads/b${i}`, parent);
  }
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A repository of enough distinct, similar blobs that the delta search of a full repack takes a while. */
function slowToRepack(name: string): string {
  const dir = path.join(root, name);
  execFileSync('git', ['init', '-q', '--bare', dir], { env });
  let fi = '';
  for (let i = 1; i <= 1000; i++) {
    const body = `${i}\n${'line of text that repeats with a number '.repeat(20)}${i * 7919}\n`.repeat(8);
    fi += `commit refs/heads/b${i % 50}\ncommitter T <t@e> ${1700000000 + i} +0000\ndata 2\nc\nM 644 inline f${i}.txt\ndata ${Buffer.byteLength(body)}\n${body}\n`;
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, input: fi, env: { ...env, GIT_DIR: dir } });
  return dir;
}

describe('Housekeeper', () => {
  it('when thresholds are passed, then loose objects are packed, refs packed and a split commit-graph written', async () => {
    const hk = new Housekeeper(createLogger('test'), { looseRefsLimit: 2, looseObjectsLimit: 3 });
    expect(readdirSync(path.join(repo, 'objects', 'pack'))).toEqual([]);
    await hk.runNow(repo);
    expect(readdirSync(path.join(repo, 'objects', 'pack')).some((f) => f.endsWith('.pack'))).toBe(true);
    expect(existsSync(path.join(repo, 'packed-refs'))).toBe(true);
    expect(existsSync(path.join(repo, 'objects', 'info', 'commit-graphs', 'commit-graph-chain'))).toBe(true);
    expect(g('count-objects', '-v')).toMatch(/^count: 0$/m);
    expect(g('rev-parse', 'refs/heads/b4')).toMatch(/^[0-9a-f]{40}$/);
    await hk.stop();
  });

  it('when everything is repacked, then objects no ref reaches yet survive (cruft pack)', async () => {
    const dangling = execFileSync('git', [`--git-dir=${repo}`, 'hash-object', '-w', '--stdin'], { input: 'not referenced yet\n', env }).toString().trim();
    const hk = new Housekeeper(createLogger('test'), { packsLimit: 0 });
    await hk.runNow(repo);
    expect(readdirSync(path.join(repo, 'objects', 'pack')).some((f) => f.endsWith('.mtimes'))).toBe(true);
    expect(g('cat-file', '-p', dangling)).toBe('not referenced yet');
    await hk.stop();
  });

  it('when a repository without a commit-graph is first used, then one is written soon; with one, nothing is scheduled', async () => {
    const fresh = path.join(root, 'fresh.git');
    execFileSync('git', ['clone', '-q', '--bare', repo, fresh], { env });
    const hk = new Housekeeper(createLogger('test'), { delayMs: 10 });
    expect(hk.seen(fresh)).toBe(false);
    hk.onFirstUse(fresh);
    expect(hk.seen(fresh)).toBe(true);
    await new Promise((r) => setTimeout(r, 150));
    await hk.whenIdle(fresh);
    expect(existsSync(path.join(fresh, 'objects', 'info', 'commit-graphs', 'commit-graph-chain'))).toBe(true);
    const again = new Housekeeper(createLogger('test'), { delayMs: 10 });
    again.onFirstUse(fresh);
    await new Promise((r) => setTimeout(r, 150));
    expect(again.runs.get(fresh)).toBeUndefined();
    await hk.stop();
    await again.stop();
  });

  it('when a repository has no commit-graph, then a plain one is written first and replaced whole by one with Bloom filters: one layer, every commit filtered, verified', async () => {
    const fresh = path.join(root, 'no-graph.git');
    // --no-local: a local clone would copy the source's commit-graph with its objects.
    execFileSync('git', ['clone', '-q', '--bare', '--no-local', repo, fresh], { env });
    expect(await commitGraphState(fresh)).toBe('none');
    const hk = new Housekeeper(createLogger('test'));
    await hk.runNow(fresh);
    expect(hk.lastSteps.get(fresh)?.[0]).toBe('commit-graph without filters');
    expect(hk.lastSteps.get(fresh)?.at(-1)).toBe('commit-graph');
    expect(await commitGraphState(fresh)).toBe('with-filters');
    const chain = path.join(fresh, 'objects', 'info', 'commit-graphs', 'commit-graph-chain');
    expect(readFileSync(chain, 'latin1').split('\n').filter(Boolean)).toHaveLength(1);
    execFileSync('git', [`--git-dir=${fresh}`, 'commit-graph', 'verify'], { env });
    // The next run adds a layer on top, with filters, and replaces nothing.
    const gf = (...args: string[]) => execFileSync('git', [`--git-dir=${fresh}`, ...args], { env }).toString().trim();
    const tip = gf('rev-parse', 'refs/heads/b4');
    gf('update-ref', 'refs/heads/more', gf('commit-tree', `${tip}^{tree}`, '-p', tip, '-m', 'more'));
    await hk.runNow(fresh);
    expect(hk.lastSteps.get(fresh)).not.toContain('commit-graph without filters');
    expect(readFileSync(chain, 'latin1').split('\n').filter(Boolean)).toHaveLength(2);
    expect(await readCommitGraph(fresh)).toEqual({ state: 'with-filters', commits: Number(gf('rev-list', '--all', '--count')) });
    await hk.stop();
  });

  it('when a repository\'s commits need more memory for their Bloom filters than the budget, then the graph stays plain and grows by plain layers, verified; with room, it is replaced by one with filters', async () => {
    const many = path.join(root, 'filters-over-budget.git');
    execFileSync('git', ['clone', '-q', '--bare', '--no-local', repo, many], { env });
    const gm = (...args: string[]) => execFileSync('git', [`--git-dir=${many}`, ...args], { env }).toString().trim();
    const commits = Number(gm('rev-list', '--all', '--count'));
    const graphSteps = (hk: Housekeeper) => hk.lastSteps.get(many)?.filter((step) => step.includes('commit-graph') || step.startsWith('changed-path'));
    const tight = new Housekeeper(createLogger('test'), { delayMs: 60_000, memoryBytes: commits * BYTES_PER_COMMIT.changedPaths + DELTA_BASE_CACHE_BYTES - 1 });
    await tight.runNow(many);
    expect(graphSteps(tight)).toEqual(['commit-graph without filters', 'changed-path filters left out (memory)', 'commit-graph without filters']);
    expect(await readCommitGraph(many)).toEqual({ state: 'without-filters', commits });
    const tip = gm('rev-parse', 'refs/heads/b4');
    gm('update-ref', 'refs/heads/more', gm('commit-tree', `${tip}^{tree}`, '-p', tip, '-m', 'more'));
    await tight.runNow(many);
    expect(graphSteps(tight)).toEqual(['changed-path filters left out (memory)', 'commit-graph without filters']);
    expect(await readCommitGraph(many)).toEqual({ state: 'without-filters', commits: commits + 1 });
    gm('commit-graph', 'verify');
    await tight.stop();
    const roomy = new Housekeeper(createLogger('test'), { delayMs: 60_000, memoryBytes: (commits + 1) * BYTES_PER_COMMIT.changedPaths + DELTA_BASE_CACHE_BYTES });
    await roomy.runNow(many);
    expect(roomy.lastSteps.get(many)?.at(-1)).toBe('commit-graph');
    expect(await readCommitGraph(many)).toEqual({ state: 'with-filters', commits: commits + 1 });
    gm('commit-graph', 'verify');
    await roomy.stop();
  });

  it('when a repository has a commit-graph without Bloom filters (written elsewhere), then its first use schedules housekeeping, which gives every commit its filter', async () => {
    const plain = path.join(root, 'plain-graph.git');
    execFileSync('git', ['clone', '-q', '--bare', '--no-local', repo, plain], { env });
    execFileSync('git', [`--git-dir=${plain}`, 'commit-graph', 'write', '--reachable', '--split', '--no-progress'], { env });
    expect(await commitGraphState(plain)).toBe('without-filters');
    const hk = new Housekeeper(createLogger('test'), { delayMs: 10 });
    hk.onFirstUse(plain);
    await new Promise((r) => setTimeout(r, 150));
    await hk.whenIdle(plain);
    expect(hk.runs.get(plain)).toBe(1);
    expect(await commitGraphState(plain)).toBe('with-filters');
    await hk.stop();
  });

  it('when updates come in a burst, then housekeeping runs once after the quiet period', async () => {
    const hk = new Housekeeper(createLogger('test'), { delayMs: 100 });
    for (let i = 0; i < 5; i++) hk.schedule(repo);
    await new Promise((r) => setTimeout(r, 250));
    await hk.whenIdle(repo);
    expect(hk.runs.get(repo)).toBe(1);
    await hk.stop();
  });

  it('when a run is asked for while one is running, then they never overlap and one more run follows', async () => {
    const hk = new Housekeeper(createLogger('test'));
    const first = hk.runNow(repo);
    const second = hk.runNow(repo);
    await Promise.all([first, second]);
    expect(hk.runs.get(repo)).toBe(2);
    await hk.stop();
  });

  it('when a killed process left a push quarantine and a temporary pack, then first use removes them and keeps a live push\'s', async () => {
    const objects = path.join(repo, 'objects');
    const dead = path.join(objects, 'tmp_objdir-incoming-dead01');
    mkdirSync(path.join(dead, 'pack'), { recursive: true });
    writeFileSync(path.join(dead, 'pack', 'tmp_pack_x'), 'half a pack');
    const deadPack = path.join(objects, 'pack', 'tmp_pack_dead02');
    writeFileSync(deadPack, 'half a pack');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(dead, hourAgo, hourAgo);
    utimesSync(deadPack, hourAgo, hourAgo);
    const hk = new Housekeeper(createLogger('test'), { delayMs: 60_000 });
    const live = path.join(objects, 'tmp_objdir-incoming-live03');
    const pushEnded = hk.pushStarted(repo);
    mkdirSync(live);
    const removed = await hk.pruneAbandonedPushes(repo);
    expect(removed.sort()).toEqual([deadPack, dead].sort());
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(deadPack)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(g('rev-parse', 'refs/heads/b4')).toMatch(/^[0-9a-f]{40}$/);
    // Still in flight when looked at again: kept.
    await new Promise((r) => setTimeout(r, 5_500));
    expect(existsSync(live)).toBe(true);
    await rm(live, { recursive: true });
    await pushEnded(true);
    await hk.stop();
  });

  it('when a quarantine was written after the start by no push of this process (a killed process\'s receive-pack outlived it), then it is removed on a second look', async () => {
    const orphan = path.join(repo, 'objects', 'tmp_objdir-incoming-orphan04');
    const hk = new Housekeeper(createLogger('test'), { delayMs: 60_000 });
    mkdirSync(orphan);
    expect(await hk.pruneAbandonedPushes(repo)).toEqual([]);
    expect(existsSync(orphan)).toBe(true);
    await new Promise((r) => setTimeout(r, 5_500));
    expect(existsSync(orphan)).toBe(false);
    await hk.stop();
  });

  it('when loose objects and packs pile up, then a geometric repack rolls them into few packs with a multi-pack index and bitmap', async () => {
    const geo = path.join(root, 'geo.git');
    execFileSync('git', ['clone', '-q', '--bare', repo, geo], { env });
    for (let i = 0; i < 3; i++) {
      execFileSync('git', [`--git-dir=${geo}`, 'hash-object', '-w', '--stdin'], { input: `pack ${i}\n`, env });
      execFileSync('git', [`--git-dir=${geo}`, 'repack', '-d', '-q'], { env });
    }
    const packs = () => readdirSync(path.join(geo, 'objects', 'pack')).filter((f) => f.endsWith('.pack'));
    expect(packs().length).toBeGreaterThanOrEqual(2);
    const hk = new Housekeeper(createLogger('test'), { delayMs: 60_000, looseObjectsLimit: 0 });
    await hk.runNow(geo);
    expect(execFileSync('git', [`--git-dir=${geo}`, 'count-objects', '-v'], { env }).toString()).toMatch(/^count: 0$/m);
    const files = readdirSync(path.join(geo, 'objects', 'pack'));
    expect(files).toContain('multi-pack-index');
    expect(files.some((f) => f.startsWith('multi-pack-index-') && f.endsWith('.bitmap'))).toBe(true);
    expect(execFileSync('git', [`--git-dir=${geo}`, 'fsck', '--no-progress', '--no-dangling'], { env }).toString()).toBe('');
    await hk.stop();
  });

  it('when a repository\'s objects need more memory than the budget, then the full repack and the bitmap are left out and said so, the packs still roll up, and the repository stays whole', async () => {
    const big = path.join(root, 'over-budget.git');
    execFileSync('git', ['clone', '-q', '--bare', '--no-local', repo, big], { env });
    for (let i = 0; i < 3; i++) {
      execFileSync('git', [`--git-dir=${big}`, 'hash-object', '-w', '--stdin'], { input: `over ${i}\n`, env });
      execFileSync('git', [`--git-dir=${big}`, 'repack', '-d', '-q'], { env });
    }
    const counts = execFileSync('git', [`--git-dir=${big}`, 'count-objects', '-v'], { env }).toString();
    const objects = Number(/^count: (\d+)$/m.exec(counts)![1]) + Number(/^in-pack: (\d+)$/m.exec(counts)![1]);
    const packDir = path.join(big, 'objects', 'pack');
    const packSteps = (hk: Housekeeper) => hk.lastSteps.get(big)?.filter((step) => step.includes('repack') || step.startsWith('full') || step.startsWith('bitmap'));
    // Room for the bitmap's git, not for the full repack's.
    const between = new Housekeeper(createLogger('test'), { delayMs: 60_000, packsLimit: 0, memoryBytes: objects * BYTES_PER_OBJECT.bitmap });
    await between.runNow(big);
    expect(packSteps(between)).toEqual(['full repack left out (memory)', 'geometric repack']);
    expect(readdirSync(packDir).some((f) => f.startsWith('multi-pack-index-') && f.endsWith('.bitmap'))).toBe(true);
    await between.stop();
    // Room for neither: the packs roll up without a bitmap, and none is written.
    execFileSync('git', [`--git-dir=${big}`, 'hash-object', '-w', '--stdin'], { input: 'one more\n', env });
    const none = new Housekeeper(createLogger('test'), { delayMs: 60_000, packsLimit: 0, looseObjectsLimit: 0, memoryBytes: 1 });
    await none.runNow(big);
    expect(packSteps(none)).toEqual(['full repack left out (memory)', 'bitmap left out (memory)', 'geometric repack without bitmap']);
    expect(execFileSync('git', [`--git-dir=${big}`, 'count-objects', '-v'], { env }).toString()).toMatch(/^count: 0$/m);
    expect(readdirSync(packDir).filter((f) => f.endsWith('.bitmap'))).toEqual([]);
    expect(readdirSync(packDir).filter((f) => f.endsWith('.mtimes'))).toEqual([]);
    expect(execFileSync('git', [`--git-dir=${big}`, 'fsck', '--no-progress', '--no-dangling'], { env }).toString()).toBe('');
    expect(execFileSync('git', [`--git-dir=${big}`, 'rev-parse', 'refs/heads/b4'], { env }).toString().trim()).toBe(g('rev-parse', 'refs/heads/b4'));
    await none.stop();
  });

  it('when the repository is one pack without a bitmap (a first push as receive-pack keeps it), then housekeeping writes a multi-pack index and its bitmap, once', async () => {
    const one = path.join(root, 'one-pack.git');
    // --no-local: a real pack, as a push leaves it; no bitmap (repack.writeBitmaps is off here).
    execFileSync('git', ['clone', '-q', '--bare', '--no-local', repo, one], { env });
    const packDir = path.join(one, 'objects', 'pack');
    expect(readdirSync(packDir).filter((f) => f.endsWith('.pack'))).toHaveLength(1);
    expect(readdirSync(packDir).some((f) => f.endsWith('.bitmap'))).toBe(false);
    const hk = new Housekeeper(createLogger('test'), { delayMs: 60_000 });
    await hk.runNow(one);
    const files = readdirSync(packDir);
    const bitmap = files.find((f) => f.startsWith('multi-pack-index-') && f.endsWith('.bitmap'));
    expect(bitmap).toBeDefined();
    expect(files).toContain('multi-pack-index');
    expect(files.filter((f) => f.endsWith('.pack'))).toHaveLength(1);
    expect(existsSync(path.join(one, 'objects', 'info', 'commit-graphs', 'commit-graph-chain'))).toBe(true);
    // The bitmap answers for every ref: git checks it against a plain walk.
    expect(execFileSync('git', [`--git-dir=${one}`, 'rev-list', '--test-bitmap', 'refs/heads/b4'], { env, stdio: ['ignore', 'pipe', 'pipe'] }).toString()).toBe('');
    expect(execFileSync('git', [`--git-dir=${one}`, 'fsck', '--no-progress', '--no-dangling'], { env }).toString()).toBe('');
    // With a bitmap in place, the next run has nothing to repack: the same bitmap stays.
    await hk.runNow(one);
    expect(readdirSync(packDir).filter((f) => f.endsWith('.bitmap'))).toEqual([bitmap]);
    await hk.stop();
  });

  it('when a push is in flight, then housekeeping waits for it to end before its next step', async () => {
    const hk = new Housekeeper(createLogger('test'), { delayMs: 60_000 });
    const pushEnded = hk.pushStarted(repo);
    const before = hk.runs.get(repo) ?? 0;
    const run = hk.runNow(repo);
    await new Promise((r) => setTimeout(r, 300));
    expect(hk.runs.get(repo) ?? 0).toBe(before);
    await pushEnded(true);
    await run;
    expect(hk.runs.get(repo)).toBe(before + 1);
    await hk.stop();
  });

  it('when two repositories need housekeeping and the concurrency is 1, then their runs never overlap', async () => {
    const other = path.join(root, 'other.git');
    execFileSync('git', ['clone', '-q', '--bare', repo, other], { env });
    const hk = new Housekeeper(createLogger('test'), { delayMs: 60_000, concurrency: 1 });
    const order: string[] = [];
    const a = hk.runNow(repo).then(() => order.push('a'));
    const b = hk.runNow(other).then(() => order.push('b'));
    // The second waits for a slot: it has not run while the first holds it.
    await a;
    expect(hk.runs.get(other)).toBeUndefined();
    await b;
    expect(order).toEqual(['a', 'b']);
    await hk.stop();
  });

  it('when the repack child is killed (SIGKILL) midway, then the repository stays valid and the next housekeeping completes', async () => {
    const big = slowToRepack('big.git');
    const refsBefore = execFileSync('git', [`--git-dir=${big}`, 'for-each-ref', '--format=%(objectname) %(refname)'], { env }).toString();
    const hk = new Housekeeper(createLogger('test'), { delayMs: 60_000, packsLimit: 0 });
    const run = hk.runNow(big);
    const pid = await gitRunning('repack', big);
    process.kill(pid, 'SIGKILL');
    await run;
    expect(execFileSync('git', [`--git-dir=${big}`, 'fsck', '--no-progress', '--connectivity-only'], { env }).toString()).toBe('');
    expect(execFileSync('git', [`--git-dir=${big}`, 'for-each-ref', '--format=%(objectname) %(refname)'], { env }).toString()).toBe(refsBefore);
    const refs = refsBefore.trim().split('\n').map((l) => l.split(' ')[1]!);
    for (const ref of refs) expect(execFileSync('git', [`--git-dir=${big}`, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { env }).toString()).toMatch(/^[0-9a-f]{40}\n$/);
    await hk.runNow(big);
    expect(hk.runs.get(big)).toBe(2);
    const files = readdirSync(path.join(big, 'objects', 'pack'));
    expect(files.filter((f) => f.startsWith('.tmp-'))).toEqual([]);
    expect(files.some((f) => f.endsWith('.bitmap'))).toBe(true);
    expect(existsSync(path.join(big, 'objects', 'info', 'commit-graphs', 'commit-graph-chain'))).toBe(true);
    expect(execFileSync('git', [`--git-dir=${big}`, 'fsck', '--no-progress'], { env }).toString()).toBe('');
    await hk.stop();
  }, 120_000);

  it('when the service stops while a repack runs, then stop kills that git instead of waiting for it, and the repository stays valid for the next run', async () => {
    const slow = slowToRepack('stopped.git');
    const hk = new Housekeeper(createLogger('test'), { delayMs: 60_000, packsLimit: 0 });
    const run = hk.runNow(slow);
    const pid = await gitRunning('repack', slow);
    await hk.stop();
    await run;
    // The repack was killed by stop, not finished: the run recorded no steps, and its git is gone.
    expect(hk.lastSteps.get(slow)).toBeUndefined();
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(execFileSync('git', [`--git-dir=${slow}`, 'fsck', '--no-progress', '--connectivity-only'], { env }).toString()).toBe('');
    const next = new Housekeeper(createLogger('test'), { delayMs: 60_000, packsLimit: 0 });
    await next.runNow(slow);
    expect(next.lastSteps.get(slow)).toContain('full repack');
    expect(readdirSync(path.join(slow, 'objects', 'pack')).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
    await next.stop();
  }, 120_000);
});
