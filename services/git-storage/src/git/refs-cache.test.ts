import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REREAD_AT_MOST, RefsCache } from './refs-cache.js';

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
  it('when refs this process changed are reported, then only they are read again: moved, created, deleted, a tag peeled, and the list stays sorted', async () => {
    const cache = new RefsCache();
    const main = (await cache.get(gitDir, 'refs/heads/main'))!.target;
    const next = git('commit-tree', `${main}^{tree}`, '-p', main, '-m', 'three');
    const listed = await cache.list(gitDir);
    git('update-ref', 'refs/heads/main', next, main);
    git('update-ref', 'refs/heads/a-new', next);
    git('update-ref', 'refs/heads/main-x/below', next); // under a changed name, not reported: not read
    git('update-ref', '-d', 'refs/tags/light');
    git('tag', '-a', 'v2', '-m', 'v2', next);
    cache.changed(gitDir, ['refs/heads/main', 'refs/heads/a-new', 'refs/tags/light', 'refs/tags/v2']);
    const v2 = git('rev-parse', 'refs/tags/v2');
    const refs = await cache.list(gitDir);
    expect(refs.map((r) => r.name)).toEqual(['refs/blobs/b', 'refs/heads/a-new', 'refs/heads/main', 'refs/tags/v1', 'refs/tags/v1-again', 'refs/tags/v2', 'refs/trees/t']);
    expect((await cache.get(gitDir, 'refs/heads/main'))!.target).toBe(next);
    expect(await cache.get(gitDir, 'refs/tags/light')).toBeUndefined();
    expect(await cache.get(gitDir, 'refs/tags/v2')).toEqual({ name: 'refs/tags/v2', target: v2, type: 'tag', peeled: next });
    // A list handed out before is not changed under its holder.
    expect(listed.map((r) => r.name)).toContain('refs/tags/light');
    git('update-ref', '-d', 'refs/heads/main-x/below');
  });

  it('when values are asked, then those a ref holds or an annotated tag peels to are found, and the index follows changes', async () => {
    const cache = new RefsCache();
    const main = (await cache.get(gitDir, 'refs/heads/main'))!.target;
    const v2 = (await cache.get(gitDir, 'refs/tags/v2'))!;
    const stray = git('commit-tree', `${main}^{tree}`, '-m', 'on no ref');
    expect(await cache.heldOf(gitDir, [main, v2.target, v2.peeled, stray])).toEqual(new Set([main, v2.target]));
    git('update-ref', 'refs/heads/stray', stray);
    cache.changed(gitDir, ['refs/heads/stray']);
    expect(await cache.heldOf(gitDir, [stray])).toEqual(new Set([stray]));
    git('update-ref', '-d', 'refs/heads/stray');
    cache.changed(gitDir, ['refs/heads/stray']);
    expect(await cache.heldOf(gitDir, [stray])).toEqual(new Set());
  });

  it('when two changes to one ref are reported in the opposite order, then the cache holds what git holds', async () => {
    const cache = new RefsCache();
    const main = (await cache.get(gitDir, 'refs/heads/main'))!.target;
    const one = git('commit-tree', `${main}^{tree}`, '-p', main, '-m', 'one more');
    git('update-ref', 'refs/heads/main', one, main);
    git('update-ref', 'refs/heads/main', main, one);
    cache.changed(gitDir, ['refs/heads/main']); // the second change's report
    cache.changed(gitDir, ['refs/heads/main']); // the first's, late
    expect((await cache.get(gitDir, 'refs/heads/main'))!.target).toBe(main);
  });

  it('when more refs changed than are read one by one, or a change is reported during a fill, then the next read agrees with git', async () => {
    const cache = new RefsCache();
    const main = (await cache.get(gitDir, 'refs/heads/main'))!.target;
    const names = Array.from({ length: REREAD_AT_MOST + 1 }, (_, i) => `refs/heads/many/${i}`);
    execFileSync('git', [`--git-dir=${gitDir}`, 'update-ref', '--stdin'], { env, input: names.map((n) => `create ${n} ${main}\n`).join('') });
    cache.changed(gitDir, names);
    expect((await cache.list(gitDir)).filter((r) => r.name.startsWith('refs/heads/many/'))).toHaveLength(names.length);
    cache.invalidate(gitDir);
    const filling = cache.list(gitDir);
    execFileSync('git', [`--git-dir=${gitDir}`, 'update-ref', '--stdin'], { env, input: names.map((n) => `delete ${n} ${main}\n`).join('') });
    cache.changed(gitDir, names.slice(0, 3));
    await filling;
    // Whether the fill listed them before or after the deletion, the reported ones are read again.
    for (const name of names.slice(0, 3)) expect(await cache.get(gitDir, name)).toBeUndefined();
    cache.invalidate(gitDir);
    expect((await cache.list(gitDir)).filter((r) => r.name.startsWith('refs/heads/many/'))).toHaveLength(0);
  });
  it('when the tables hold more refs than maxRefs, then the least recently read go, never the one just read', async () => {
    const other = path.join(root, 'other.git');
    execFileSync('git', ['init', '-q', '--bare', other], { env });
    const main = (await new RefsCache().get(gitDir, 'refs/heads/main'))!.target;
    execFileSync('git', [`--git-dir=${other}`, 'fetch', '-q', gitDir, 'refs/heads/main:refs/heads/main'], { env });
    const count = (await new RefsCache().list(gitDir)).length;
    const cache = new RefsCache({ maxRefs: count });
    expect((await cache.get(gitDir, 'refs/heads/main'))!.target).toBe(main);
    // Changed behind the cache's back: a kept table still shows the old value, a dropped one the new.
    const next = git('commit-tree', `${main}^{tree}`, '-p', main, '-m', 'behind its back');
    git('update-ref', 'refs/heads/main', next, main);
    expect((await cache.get(gitDir, 'refs/heads/main'))!.target).toBe(main); // kept: within the bound
    await cache.list(other); // one more table: past the bound, the first read goes
    await new Promise((r) => setImmediate(r));
    expect((await cache.get(gitDir, 'refs/heads/main'))!.target).toBe(next);
    // Alone past the bound, the table just read stays.
    const tiny = new RefsCache({ maxRefs: 1 });
    await tiny.list(gitDir);
    git('update-ref', 'refs/heads/main', main, next);
    expect((await tiny.get(gitDir, 'refs/heads/main'))!.target).toBe(next);
  });
});
