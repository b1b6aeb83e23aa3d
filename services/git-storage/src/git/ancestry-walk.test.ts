import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { walkAncestry } from './ancestry-walk.js';
import { CatfilePool } from './catfile-pool.js';
import { readCommitObject } from './objects.js';

const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };

let root: string;
let gitDir: string;
let pool: CatfilePool;
let empty: string;
const c: Record<string, string> = {};

/** A commit with these parents, committed at `time` (seconds): times out of order make clock skew. */
function commit(name: string, parents: string[], time: number): void {
  const at = `@${time} +0000`;
  c[name] = execFileSync('git', [`--git-dir=${gitDir}`, 'commit-tree', empty, ...parents.flatMap((p) => ['-p', c[p]!]), '-m', name], {
    env: { ...env, GIT_AUTHOR_DATE: at, GIT_COMMITTER_DATE: at },
  })
    .toString()
    .trim();
}

const read = async (oid: string) => (await readCommitObject(pool, gitDir, oid))!;
const walk = async (ancestor: string, descendant: string, budget?: number) => walkAncestry(pool, gitDir, await read(c[ancestor]!), await read(c[descendant]!), budget);
/** What git reaches from a commit (itself included), one rev-list per commit rather than a merge-base per pair. */
const reachable = (descendant: string) => new Set(execFileSync('git', [`--git-dir=${gitDir}`, 'rev-list', c[descendant]!], { env }).toString().split('\n').filter(Boolean));

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'githost-ancestry-'));
  gitDir = path.join(root, 'r.git');
  execFileSync('git', ['init', '-q', '--bare', gitDir], { env });
  empty = execFileSync('git', [`--git-dir=${gitDir}`, 'mktree'], { input: '', env }).toString().trim();
  // main: m0 .. m5; topic from m2 (t1, t2); side from m3 (s1); merge of t2 and s1; a skewed chain
  // (k1 dated before its parent m4, k2 before everything) and a history of its own.
  commit('m0', [], 1000);
  for (let i = 1; i <= 5; i++) commit(`m${i}`, [`m${i - 1}`], 1000 + i * 10);
  commit('t1', ['m2'], 1100);
  commit('t2', ['t1'], 1110);
  commit('s1', ['m3'], 1105);
  commit('merge', ['t2', 's1'], 1120);
  commit('k1', ['m4'], 500);
  commit('k2', ['k1'], 10);
  commit('after-skew', ['k2'], 2000);
  commit('alone', [], 1200);
  pool = new CatfilePool();
});

afterAll(async () => {
  pool.close();
  await rm(root, { recursive: true, force: true });
});

describe('walkAncestry', () => {
  it('when asked about every pair of a history with merges, clock skew and an unrelated root, then it answers as git does', async () => {
    const names = Object.keys(c);
    const mismatches: string[] = [];
    let yes = 0;
    expect(spawnSync('git', [`--git-dir=${gitDir}`, 'merge-base', '--is-ancestor', c.m4!, c['after-skew']!], { env }).status).toBe(0);
    for (const d of names) {
      const fromD = reachable(d);
      for (const a of names) {
        const expected = fromD.has(c[a]!);
        if (expected) yes++;
        const got = await walk(a, d);
        if (got !== expected) mismatches.push(`${a} -> ${d}: walk ${String(got)}, git ${String(expected)}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(yes).toBeGreaterThan(names.length); // the pairs include real "yes" answers beyond a commit and itself
    expect(await walk('m2', 'merge')).toBe(true); // through the merge's second parent's side, both sides
    expect(await walk('s1', 't2')).toBe(false);
    expect(await walk('m4', 'after-skew')).toBe(true); // parents dated after their child
    expect(await walk('m5', 'after-skew')).toBe(false);
  });

  it('when the answer needs more commits than the budget, then it leaves the answer to git', async () => {
    expect(await walk('m0', 'm5', 2)).toBeUndefined();
    expect(await walk('m0', 'm5', 10)).toBe(true);
    expect(await walk('alone', 'm5', 3)).toBeUndefined();
    expect(await walk('alone', 'm5')).toBe(false);
  });

  it('when a parent cannot be read (a damaged or shallow history), then it leaves the answer to git', async () => {
    const missing = 'e'.repeat(40);
    const orphan = execFileSync('git', [`--git-dir=${gitDir}`, 'hash-object', '-t', 'commit', '-w', '--literally', '--stdin'], {
      input: `tree ${empty}\nparent ${missing}\nauthor a <a@b> 1300 +0000\ncommitter a <a@b> 1300 +0000\n\norphan\n`,
      env,
    })
      .toString()
      .trim();
    expect(await walkAncestry(pool, gitDir, await read(c.m5!), await read(orphan))).toBeUndefined();
    // The pool's process survived the missing object and still answers.
    expect(await walk('m3', 'm5')).toBe(true);
  });
});
