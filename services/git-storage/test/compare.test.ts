import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, pushTo, rpc, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

const ID = 'repo-compare';
let s: TestStorage;
let base: string; // common ancestor
let main: string; // base + 2 commits
let feature: string; // base + 3 commits
let orphan: string; // unrelated history

const bareGit = (...args: string[]) => execFileSync('git', [`--git-dir=${s.repoPath(ID)}`, ...args]).toString().trim();
const compare = (base_oid: string, head_oid: string, max_commits = 0) => rpc(s.client, s.client.Compare, { repository_id: ID, base_oid, head_oid, max_commits });

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, ID);
  const w = await makeWorkdir();
  await writeFiles(w, { 'a.txt': 'a\n' });
  base = await commitAll(w, 'base');
  await git(w, 'checkout', '-q', '-b', 'feature');
  for (const n of [1, 2, 3]) {
    await writeFiles(w, { [`f${n}.txt`]: `${n}\n` });
    feature = await commitAll(w, `feature ${n}`);
  }
  await git(w, 'checkout', '-q', 'main');
  for (const n of [1, 2]) {
    await writeFiles(w, { [`m${n}.txt`]: `${n}\n` });
    main = await commitAll(w, `main ${n}`);
  }
  await git(w, 'checkout', '-q', '--orphan', 'orphan');
  await git(w, 'rm', '-rq', '--cached', '.');
  await writeFiles(w, { 'o.txt': 'o\n' });
  orphan = await commitAll(w, 'unrelated');
  await pushTo(s, ID, w, 'main', 'feature', 'orphan');
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

describe('Compare', () => {
  it('when the branches diverged, then counts agree with rev-list --left-right --count and merge-base, commits are head-only, oldest first', async () => {
    const res = await compare(main, feature);
    const [behind, ahead] = bareGit('rev-list', '--left-right', '--count', `${main}...${feature}`).split(/\s+/).map(Number);
    expect({ ahead: res.ahead_by, behind: res.behind_by }).toEqual({ ahead, behind });
    expect(res.ahead_by).toBe(3);
    expect(res.behind_by).toBe(2);
    expect(res.merge_base).toBe(bareGit('merge-base', main, feature));
    expect(res.merge_base).toBe(base);
    expect(res.commits.map((c) => c.oid)).toEqual(bareGit('rev-list', '--reverse', feature, `^${main}`).split('\n'));
    expect(res.commits[2]!.oid).toBe(feature);
    expect(Buffer.from(res.commits[0]!.raw).toString('utf8')).toMatch(/\n\nfeature 1\n$/);
  });

  it('when max_commits is smaller than ahead_by, then the first (oldest) commits are returned and ahead_by stays the full count', async () => {
    const res = await compare(main, feature, 2);
    expect(res.ahead_by).toBe(3);
    expect(res.commits.map((c) => c.oid)).toEqual(bareGit('rev-list', '--reverse', feature, `^${main}`).split('\n').slice(0, 2));
  });

  it('when head is behind base, then ahead_by is 0, no commits, and the merge base is head', async () => {
    const res = await compare(main, base);
    expect(res).toMatchObject({ merge_base: base, ahead_by: 0, behind_by: 2, commits: [] });
  });

  it('when both sides are the same commit, then both counts are 0', async () => {
    expect(await compare(feature, feature)).toMatchObject({ merge_base: feature, ahead_by: 0, behind_by: 0, commits: [] });
  });

  it('when the histories are unrelated, then merge_base is empty and every commit of each side counts', async () => {
    const res = await compare(main, orphan);
    expect(res).toMatchObject({ merge_base: '', ahead_by: 1, behind_by: 3 });
    expect(res.commits.map((c) => c.oid)).toEqual([orphan]);
  });

  it('when an id is malformed or looks like an option, then INVALID_ARGUMENT', async () => {
    await expect(compare('--all', feature)).rejects.toMatchObject({ kind: 'validation' });
    await expect(compare(main, 'abc')).rejects.toMatchObject({ kind: 'validation' });
  });

  it('when max_commits is out of range, then INVALID_ARGUMENT', async () => {
    await expect(compare(main, feature, 1001)).rejects.toMatchObject({ kind: 'validation', message: 'max_commits must be between 1 and 1000' });
  });

  it('when a commit does not exist, then NOT_FOUND', async () => {
    await expect(compare(main, 'f'.repeat(40))).rejects.toMatchObject({ kind: 'not_found', message: 'Commit not found' });
    await expect(compare(main, bareGit('rev-parse', `${main}^{tree}`))).rejects.toMatchObject({ kind: 'not_found', message: 'Commit not found' });
  });

  it('when the repository does not exist, then NOT_FOUND', async () => {
    await expect(rpc(s.client, s.client.Compare, { repository_id: 'repo-nope', base_oid: main, head_oid: feature, max_commits: 0 })).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('Compare with more than one merge base', () => {
  const CRISS = 'repo-compare-criss-cross';
  const cross = (base_oid: string, head_oid: string) => rpc(s.client, s.client.Compare, { repository_id: CRISS, base_oid, head_oid, max_commits: 0 });
  const crossGit = (...args: string[]) => execFileSync('git', [`--git-dir=${s.repoPath(CRISS)}`, ...args]).toString().trim();
  let x: string;
  let y: string;

  beforeAll(async () => {
    // A criss-cross: x and y fork, each merges the other's first commit, then each goes on.
    await createTestRepository(s, CRISS);
    const w = await makeWorkdir();
    await writeFiles(w, { 'root.txt': 'root\n' });
    await commitAll(w, 'root');
    await git(w, 'checkout', '-q', '-b', 'y');
    await writeFiles(w, { 'y1.txt': 'y1\n' });
    const y1 = await commitAll(w, 'y 1');
    await git(w, 'checkout', '-q', 'main');
    await writeFiles(w, { 'x1.txt': 'x1\n' });
    const x1 = await commitAll(w, 'x 1');
    await git(w, 'merge', '-q', '--no-edit', y1);
    await git(w, 'checkout', '-q', 'y');
    await git(w, 'merge', '-q', '--no-edit', x1);
    for (const n of [2, 3, 4]) {
      await writeFiles(w, { [`y${n}.txt`]: `${n}\n` });
      y = await commitAll(w, `y ${n}`);
    }
    await git(w, 'checkout', '-q', 'main');
    for (const n of [2, 3]) {
      await writeFiles(w, { [`x${n}.txt`]: `${n}\n` });
      x = await commitAll(w, `x ${n}`);
    }
    await pushTo(s, CRISS, w, 'main', 'y');
  });

  it('when the sides have two merge bases, then counts, merge base and commits are what git answers for base...head', async () => {
    expect(crossGit('merge-base', '--all', x, y).split('\n')).toHaveLength(2);
    for (const [base, head] of [[x, y], [y, x]] as const) {
      const res = await cross(base, head);
      const [behind, ahead] = crossGit('rev-list', '--left-right', '--count', `${base}...${head}`).split(/\s+/).map(Number);
      expect({ merge_base: res.merge_base, ahead: res.ahead_by, behind: res.behind_by }).toEqual({ merge_base: crossGit('merge-base', base, head), ahead, behind });
      expect(res.commits.map((c) => c.oid)).toEqual(crossGit('rev-list', '--reverse', head, `^${base}`).split('\n'));
    }
    const res = await cross(x, y);
    // y's own: its merge of x 1 and y 2-4 (y 1 is in x through x's merge); x's own: its merge, x 2-3.
    expect({ ahead: res.ahead_by, behind: res.behind_by }).toEqual({ ahead: 4, behind: 3 });
  });
});


describe('Compare when a side branch forked before base was merged after it', () => {
  const SIDE = 'repo-compare-side';
  const sideGit = (...args: string[]) => execFileSync('git', [`--git-dir=${s.repoPath(SIDE)}`, ...args]).toString().trim();
  const sideCompare = (base_oid: string, head_oid: string) => rpc(s.client, s.client.Compare, { repository_id: SIDE, base_oid, head_oid, max_commits: 0 });
  let tag: string; // main's commit before the merge: base
  let tip: string; // main after merging a branch forked from root

  beforeAll(async () => {
    await createTestRepository(s, SIDE);
    const w = await makeWorkdir();
    await writeFiles(w, { 'root.txt': 'root\n' });
    await commitAll(w, 'root');
    await git(w, 'checkout', '-q', '-b', 'side');
    await writeFiles(w, { 'side.txt': 'side\n' });
    await commitAll(w, 'side 1');
    await git(w, 'checkout', '-q', 'main');
    await writeFiles(w, { 'm.txt': '1\n' });
    tag = await commitAll(w, 'main 1');
    await git(w, 'merge', '-q', '--no-edit', 'side');
    await writeFiles(w, { 'm.txt': '2\n' });
    tip = await commitAll(w, 'main 2');
    await pushTo(s, SIDE, w, 'main', 'side');
  });

  it('when base is an ancestor of head and the walk also reaches older commits of base, then base is the merge base and behind is 0, as git says', async () => {
    expect(sideGit('rev-list', '--boundary', tip, `^${tag}`).split('\n').filter((l) => l.startsWith('-'))).toHaveLength(2);
    const res = await sideCompare(tag, tip);
    const [behind, ahead] = sideGit('rev-list', '--left-right', '--count', `${tag}...${tip}`).split(/\s+/).map(Number);
    expect({ merge_base: res.merge_base, ahead: res.ahead_by, behind: res.behind_by }).toEqual({ merge_base: sideGit('merge-base', tag, tip), ahead, behind });
    expect([res.merge_base, res.ahead_by, res.behind_by]).toEqual([tag, 3, 0]);
    expect(res.commits.map((c) => c.oid)).toEqual(sideGit('rev-list', '--reverse', tip, `^${tag}`).split('\n'));
  });
});

describe('Compare over its budget (docs/decisions/compare.md#budget)', () => {
  const LONG = 'repo-compare-long';
  const BUDGET = 50;
  let small: TestStorage;
  let oids: string[]; // a linear history, oldest first
  const long = (base_oid: string, head_oid: string, max_commits = 0) => rpc(small.client, small.client.Compare, { repository_id: LONG, base_oid, head_oid, max_commits });
  const TOO_BIG = `Comparison too big: more than ${BUDGET} commits on one side; compare commits closer together, or run git log on a clone`;

  beforeAll(async () => {
    small = await startTestStorage({ compareBudget: { maxWalkCommits: BUDGET } });
    await createTestRepository(small, LONG);
    const w = await makeWorkdir();
    // BUDGET + 10 commits after a root, written by fast-import in one run.
    const stream = Array.from({ length: BUDGET + 11 }, (_, i) => {
      const msg = `commit ${i}\n`;
      return `commit refs/heads/main\ncommitter A <a@example.com> ${1_700_000_000 + i} +0000\ndata ${msg.length}\n${msg}M 644 inline n.txt\ndata ${String(i).length + 1}\n${i}\n\n`;
    }).join('');
    execFileSync('git', ['fast-import', '--quiet'], { cwd: w, input: stream });
    oids = execFileSync('git', ['rev-list', '--reverse', 'main'], { cwd: w }).toString().trim().split('\n');
    await pushTo(small, LONG, w, 'main');
  });

  afterAll(async () => {
    await small.stop();
  });

  it('when head is exactly the budget ahead, then the whole answer comes, its page the oldest commits first', async () => {
    const res = await long(oids[0]!, oids[BUDGET]!, 5);
    expect({ merge_base: res.merge_base, ahead: res.ahead_by, behind: res.behind_by, commits: res.commits.map((c) => c.oid) }).toEqual({ merge_base: oids[0], ahead: BUDGET, behind: 0, commits: oids.slice(1, 6) });
  });

  it('when head is more commits ahead than the budget, then INVALID_ARGUMENT says the comparison is too big', async () => {
    await expect(long(oids[0]!, oids[oids.length - 1]!)).rejects.toMatchObject({ kind: 'validation', message: TOO_BIG });
  });

  it('when base is more commits ahead than the budget (head far behind), then too big as well', async () => {
    await expect(long(oids[oids.length - 1]!, oids[0]!)).rejects.toMatchObject({ kind: 'validation', message: TOO_BIG });
  });

  it('when the comparison is too big, then the service still answers a small one', async () => {
    await expect(long(oids[0]!, oids[oids.length - 1]!)).rejects.toMatchObject({ kind: 'validation' });
    expect(await long(oids[oids.length - 2]!, oids[oids.length - 1]!)).toMatchObject({ ahead_by: 1, behind_by: 0 });
  });
});
