import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CatfilePool } from './catfile-pool.js';
import { CatfileProcess } from './catfile-process.js';
import { LOG_WALK_MAX_COMMITS, walkLog, walkNodeOf } from './log-walk.js';

const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };

let root: string;
let gitDir: string;
let pool: CatfilePool;
let empty: string;
const commits: string[] = [];

const git = (args: string[], input?: string) => execFileSync('git', [`--git-dir=${gitDir}`, ...args], { env, input, stdio: 'pipe' }).toString();

/** A commit with these parents, committed at `time` (seconds): times out of order make clock skew. */
function commit(parents: string[], time: number): string {
  const at = `@${time} +0000`;
  const oid = execFileSync('git', [`--git-dir=${gitDir}`, 'commit-tree', empty, ...parents.flatMap((p) => ['-p', p]), '-m', `c${commits.length}`], {
    env: { ...env, GIT_AUTHOR_DATE: at, GIT_COMMITTER_DATE: at },
  })
    .toString()
    .trim();
  commits.push(oid);
  return oid;
}

/** A small seeded generator, so a failing history can be made again. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const revList = (tip: string, limit: number, offset = 0) => git(['rev-list', `--max-count=${limit}`, `--skip=${offset}`, tip]).split('\n').filter(Boolean);
const walkedIds = async (tip: string, limit: number, offset: number) => (await walkLog(pool, gitDir, tip, limit, offset))?.map((c) => c.oid);

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'githost-log-walk-'));
  gitDir = path.join(root, 'r.git');
  execFileSync('git', ['init', '-q', '--bare', gitDir], { env });
  empty = git(['mktree'], '').trim();
  // 160 commits on random earlier commits: merges of two and three parents, dates drawn from few
  // values (many ties) that go back in time as often as forward (clock skew), two roots.
  const next = random(7);
  const pick = () => commits[Math.floor(next() * commits.length)]!;
  commit([], 1000);
  commit([], 1000);
  for (let i = 0; i < 158; i++) {
    const tip = commits[commits.length - 1 - Math.floor(next() * 3)]!;
    const shape = next();
    const parents = shape < 0.7 ? [tip] : shape < 0.93 ? [tip, pick()] : [tip, pick(), pick()];
    commit([...new Set(parents)], 1000 + Math.floor(next() * 12) * 100);
  }
  pool = new CatfilePool();
});

afterAll(async () => {
  pool.close();
  await rm(root, { recursive: true, force: true });
});

describe('walkLog', () => {
  it('when paging a history with merges, ties and clock skew from many tips, then every page is rev-list\'s, byte for byte', async () => {
    const tips = commits.filter((_, i) => i % 4 === 3 || i >= commits.length - 5);
    let compared = 0;
    for (const tip of tips) {
      const all = revList(tip, LOG_WALK_MAX_COMMITS);
      for (const [limit, offset] of [[1, 0], [20, 0], [50, 0], [101, 0], [21, 20], [51, 50], [LOG_WALK_MAX_COMMITS, 0]] as const) {
        expect(await walkedIds(tip, limit, offset)).toEqual(all.slice(offset, offset + limit));
        compared++;
      }
    }
    expect(compared).toBe(tips.length * 7);
    // The long pages reach far enough to pass merges and skewed commits.
    expect(revList(commits[commits.length - 1]!, 1000).length).toBeGreaterThan(50);
  });

  it('when history is a straight line, then the walk reads ahead along first parents: a page of 50 in three writes to cat-file', async () => {
    let line = commit([], 5000);
    for (let i = 1; i <= 60; i++) line = commit([line], 5000 + (i % 7) * 10);
    const send = jest.spyOn(CatfileProcess.prototype, 'send');
    try {
      expect(await walkedIds(line, 50, 0)).toEqual(revList(line, 50));
      expect(send).toHaveBeenCalledTimes(3); // the tip peeled, the tip, its parent with 49 ahead
    } finally {
      send.mockRestore();
    }
  });

  it('when a page is walked, then its objects are cat-file\'s own bytes', async () => {
    const tip = commits[commits.length - 1]!;
    const page = (await walkLog(pool, gitDir, tip, 5, 0))!;
    expect(page.map((c) => c.raw.toString('latin1'))).toEqual(page.map((c) => git(['cat-file', 'commit', c.oid])));
  });

  it('when the tip is an annotated tag, then the walk starts at its commit as rev-list does', async () => {
    const tip = commits[commits.length - 1]!;
    const tag = git(['mktag'], `object ${tip}\ntype commit\ntag v1\ntagger a <a@b> 1000 +0000\n\nv1\n`).trim();
    expect(await walkedIds(tag, 10, 0)).toEqual(revList(tag, 10));
  });

  it('when git might answer otherwise or the walk would be long, then it leaves the page to rev-list', async () => {
    expect(await walkedIds('0'.repeat(40), 10, 0)).toBeUndefined();
    expect(await walkedIds(empty, 10, 0)).toBeUndefined();
    expect(await walkedIds(commits[10]!, 150, LOG_WALK_MAX_COMMITS - 149)).toBeUndefined();
    const missingParent = git(['hash-object', '-t', 'commit', '-w', '--stdin', '--literally'], `tree ${empty}\nparent ${'1'.repeat(40)}\nauthor a <a@b> 1000 +0000\ncommitter a <a@b> 1000 +0000\n\nm\n`).trim();
    expect(() => revList(missingParent, 1)).toThrow();
    expect(await walkedIds(missingParent, 1, 0)).toBeUndefined();
    const oddDate = git(['hash-object', '-t', 'commit', '-w', '--stdin', '--literally'], `tree ${empty}\nparent ${commits[5]}\nauthor a <a@b> 1000 +0000\ncommitter a <a@b> -5 +0000\n\nm\n`).trim();
    expect(await walkedIds(oddDate, 10, 0)).toBeUndefined();
    await writeFile(path.join(gitDir, 'shallow'), `${commits[5]}\n`);
    try {
      expect(await walkedIds(commits[20]!, 10, 0)).toBeUndefined();
    } finally {
      await rm(path.join(gitDir, 'shallow'));
    }
  });
});

describe('walkNodeOf', () => {
  const tree = 'a'.repeat(40);
  const node = (head: string) => walkNodeOf(Buffer.from(`${head}\n\nmessage\ncommitter x <y> 5 +0000\n`, 'latin1'));

  it('when a commit is as git writes it, then it gives the parents and the committer date', () => {
    expect(node(`tree ${tree}\nparent ${'b'.repeat(40)}\nparent ${'c'.repeat(40)}\nauthor a <a@b> 7 +0100\ncommitter c <c@d> 1700000000 -0230\ngpgsig x`)).toEqual({
      parents: ['b'.repeat(40), 'c'.repeat(40)],
      time: 1700000000,
    });
  });

  it('when git would read the date or the parents otherwise, then it gives nothing', () => {
    expect(node(`tree ${tree}\ncommitter c <c@d> 17 +0000`)).toBeUndefined();
    expect(node(`tree ${tree}\nauthor a <a@b> 7 +0000\nmergetag x\ncommitter c <c@d> 17 +0000`)).toBeUndefined();
    expect(node(`tree ${tree}\nauthor a <a@b> 7 +0000\ncommitter c <c@d> 17`)).toBeUndefined();
    expect(node(`tree ${tree}\nauthor a <a@b> 7 +0000\ncommitter c <c@d> ${2 ** 34} +0000`)).toBeUndefined();
    expect(node(`tree ${tree}\nparent xyz\nauthor a <a@b> 7 +0000\ncommitter c <c@d> 17 +0000`)).toBeUndefined();
  });
});
