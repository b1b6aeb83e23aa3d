import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RefsCache } from './refs-cache.js';

const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
let root: string;
let gitDir: string;
const git = (...args: string[]) => execFileSync('git', [`--git-dir=${gitDir}`, ...args], { env }).toString().trim();

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'refs-cache-'));
  gitDir = path.join(root, 'r.git');
  execFileSync('git', ['init', '-q', '--bare', gitDir], { env });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('RefsCache', () => {
  it('when refs name commits, annotated tags, a tag of a tag, a tree and a blob, then each has its type and every tag its final peel', async () => {
    const blob = execFileSync('git', [`--git-dir=${gitDir}`, 'hash-object', '-w', '--stdin'], { env, input: 'x\n' }).toString().trim();
    const tree = execFileSync('git', [`--git-dir=${gitDir}`, 'mktree'], { env, input: `100644 blob ${blob}\tx\n` }).toString().trim();
    const commit = git('commit-tree', tree, '-m', 'one');
    git('update-ref', 'refs/heads/main', commit);
    git('update-ref', 'refs/tags/light', commit);
    git('tag', '-a', 'v1', '-m', 'v1', commit);
    const v1 = git('rev-parse', 'refs/tags/v1');
    git('tag', '-a', 'v1-again', '-m', 'a tag of a tag', v1);
    const again = git('rev-parse', 'refs/tags/v1-again');
    git('update-ref', 'refs/trees/t', tree);
    git('update-ref', 'refs/blobs/b', blob);
    // Packed or loose, the same answer (housekeeping packs refs).
    for (const pack of [false, true]) {
      if (pack) git('pack-refs', '--all');
      const refs = await new RefsCache().list(gitDir);
      expect(refs.map((r) => [r.name, r.type, r.target, r.peeled])).toEqual([
        ['refs/blobs/b', 'blob', blob, ''],
        ['refs/heads/main', 'commit', commit, ''],
        ['refs/tags/light', 'commit', commit, ''],
        ['refs/tags/v1', 'tag', v1, commit],
        ['refs/tags/v1-again', 'tag', again, commit],
        ['refs/trees/t', 'tree', tree, ''],
      ]);
    }
  });

  it('when a ref changes and the cache is invalidated, then the next list reads it again', async () => {
    const cache = new RefsCache();
    const before = (await cache.get(gitDir, 'refs/heads/main'))!.target;
    const next = git('commit-tree', `${before}^{tree}`, '-p', before, '-m', 'two');
    git('update-ref', 'refs/heads/main', next, before);
    expect((await cache.get(gitDir, 'refs/heads/main'))!.target).toBe(before);
    cache.invalidate(gitDir);
    expect((await cache.get(gitDir, 'refs/heads/main'))!.target).toBe(next);
  });
});
