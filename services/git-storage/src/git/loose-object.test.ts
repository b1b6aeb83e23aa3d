import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gitEnv, gitProcessesStarted } from './command.js';
import { commitMerge, type Signature } from './merge.js';

let root: string;
let gitDir: string;
let tree: string;
let ours: string;
let theirs: string;

const git = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  execFileSync('git', [`--git-dir=${gitDir}`, ...args], { input: opts.input, env: gitEnv(opts.env) }).toString().trim();

/** What `git commit-tree` itself writes for the same inputs (the way commitMerge took before). */
function commitTreeByGit(parents: string[], author: Signature, committer: Signature, message: string): string {
  return git(['commit-tree', ...parents.flatMap((p) => ['-p', p]), '-F', '-', tree], {
    input: message,
    env: {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: `@${author.timestamp} +0000`,
      GIT_COMMITTER_NAME: committer.name,
      GIT_COMMITTER_EMAIL: committer.email,
      GIT_COMMITTER_DATE: `@${committer.timestamp} +0000`,
    },
  });
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'githost-loose-object-'));
  gitDir = path.join(root, 'r.git');
  execFileSync('git', ['init', '-q', '--bare', gitDir], { env: gitEnv() });
  git(['config', 'core.fsync', 'objects,derived-metadata,reference']);
  const blob = git(['hash-object', '-w', '--stdin'], { input: 'hello\n' });
  tree = git(['mktree'], { input: `100644 blob ${blob}\thello.txt\n` });
  const sig = { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@x' };
  ours = git(['commit-tree', tree, '-m', 'ours'], { env: sig });
  theirs = git(['commit-tree', tree, '-m', 'theirs'], { env: sig });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('commitMerge writing the commit itself', () => {
  const alice = { name: 'alice', email: 'alice@example.com', timestamp: 1_700_000_000 };
  const bob = { name: 'Bob Ünïcode', email: 'bob@example.com', timestamp: 1_700_000_123 };

  it.each([
    ['a merge commit', () => [ours, theirs], "Merge branch 'feature' into main\n"],
    ['a squash commit', () => [ours], 'Add things (#7)\n\n* one\n* two'],
    ['a message without a final newline, with CRLF and non-ASCII', () => [ours, theirs], 'Title ✓\r\n\r\nbody'],
  ])('when it writes %s, then the id is the one git commit-tree gives, and the object is whole, read-only and fsck-clean', async (_what, parents, message) => {
    const spawnedBefore = gitProcessesStarted();
    const oid = await commitMerge(gitDir, tree, parents(), alice, bob, message);
    expect(gitProcessesStarted()).toBe(spawnedBefore);
    expect(oid).toBe(commitTreeByGit(parents(), alice, bob, message));
    expect(git(['cat-file', '-t', oid])).toBe('commit');
    expect((await stat(path.join(gitDir, 'objects', oid.slice(0, 2), oid.slice(2)))).mode & 0o777).toBe(0o400);
    expect(git(['fsck', '--strict', '--no-dangling'])).toBe('');
  });

  it('when the same commit is written twice, then the second write keeps the object and leaves no temporary file', async () => {
    const first = await commitMerge(gitDir, tree, [ours, theirs], alice, alice, 'same\n');
    const second = await commitMerge(gitDir, tree, [ours, theirs], alice, alice, 'same\n');
    expect(second).toBe(first);
    expect(execFileSync('ls', [path.join(gitDir, 'objects', first.slice(0, 2))]).toString()).not.toMatch(/tmp_obj_/);
  });

  it('when a name ends in what git trims, then git commit-tree writes the commit, with the name as git keeps it', async () => {
    const spawnedBefore = gitProcessesStarted();
    const trimmed = { name: 'carol.', email: 'carol@example.com', timestamp: 1_700_000_000 };
    const oid = await commitMerge(gitDir, tree, [ours], trimmed, trimmed, 'm\n');
    expect(gitProcessesStarted()).toBe(spawnedBefore + 1);
    expect(oid).toBe(commitTreeByGit([ours], trimmed, trimmed, 'm\n'));
  });
});
