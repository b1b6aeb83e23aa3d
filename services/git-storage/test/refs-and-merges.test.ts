import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { InProcessEventBus, type EventEnvelope } from '@githost/bus';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, pushTo, rpc, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';
import type { PushPayload } from '../src/index.js';

const ID = 'repo-merge';
const ZERO = '0'.repeat(40);
let s: TestStorage;
let bus: InProcessEventBus;
const received: EventEnvelope[] = [];
let base: string;
let target: string; // main, moved on since the split
let source: string; // feature, clean to merge
let conflicting: string; // edits the same line as main
let ff: string; // fast-forward of main

const bareGit = (...args: string[]) => execFileSync('git', [`--git-dir=${s.repoPath(ID)}`, ...args]).toString();
const ctx = { owner: 'alice', name: 'demo', pusher: 'bob', request_id: 'req-merge' };

beforeAll(async () => {
  bus = new InProcessEventBus();
  await bus.subscribe('test-storage-events', ['push'], async (e) => void received.push(e));
  s = await startTestStorage({ bus });
  await createTestRepository(s, ID);
  const w = await makeWorkdir();
  await writeFiles(w, { 'a.txt': 'a\n', 'shared.txt': 'one\n' });
  base = await commitAll(w, 'base');
  await git(w, 'checkout', '-q', '-b', 'feature');
  await writeFiles(w, { 'b.txt': 'b\n' });
  source = await commitAll(w, 'feature work');
  await git(w, 'checkout', '-q', '-b', 'conflict', base);
  await writeFiles(w, { 'shared.txt': 'theirs\n' });
  conflicting = await commitAll(w, 'conflicting');
  await git(w, 'checkout', '-q', 'main');
  await writeFiles(w, { 'c.txt': 'c\n', 'shared.txt': 'ours\n' });
  target = await commitAll(w, 'main moves on');
  await writeFiles(w, { 'd.txt': 'd\n' });
  ff = await commitAll(w, 'ahead of main');
  await git(w, 'branch', 'ahead', ff);
  await git(w, 'reset', '-q', '--hard', target);
  await pushTo(s, ID, w, 'main', 'feature', 'conflict', 'ahead');
});

afterAll(async () => {
  await s.stop();
  await bus.close();
  await cleanupWorkdirs();
});

describe('CreateRepository and RemoveRepository', () => {
  it('when a repository is created, then it is bare, HEAD names the default branch, and it carries no hook or fast-forward rule of its own', async () => {
    await createTestRepository(s, 'repo-new', 'trunk');
    const dir = s.repoPath('repo-new');
    expect(execFileSync('git', [`--git-dir=${dir}`, 'symbolic-ref', 'HEAD']).toString().trim()).toBe('refs/heads/trunk');
    expect(execFileSync('git', [`--git-dir=${dir}`, 'rev-parse', '--is-bare-repository']).toString().trim()).toBe('true');
    // The service's hooks directory serves every repository (docs/decisions/branch-protection.md).
    expect(existsSync(`${dir}/hooks`)).toBe(false);
    expect(execFileSync('git', [`--git-dir=${dir}`, 'config', '--list', '--local']).toString()).not.toMatch(/denynonfastforwards|hookspath/i);
    expect(dir).toMatch(/\/repos\/@hashed\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}\.git$/);
  });

  it('when it already exists, then ALREADY_EXISTS', async () => {
    await expect(createTestRepository(s, 'repo-new')).rejects.toMatchObject({ kind: 'conflict', message: 'Repository already exists', cause: expect.objectContaining({ code: 6 }) });
  });

  it('when the default branch or id is invalid, then INVALID_ARGUMENT and nothing is created', async () => {
    const before = readdirSync(`${s.dataDir}/repos/@hashed`).length;
    await expect(createTestRepository(s, 'repo-bad', '-x')).rejects.toMatchObject({ kind: 'validation' });
    await expect(createTestRepository(s, 'repo-bad', 'a..b')).rejects.toMatchObject({ kind: 'validation' });
    await expect(createTestRepository(s, '../../etc')).rejects.toMatchObject({ kind: 'validation' });
    expect(existsSync(s.repoPath('repo-bad'))).toBe(false);
    expect(readdirSync(`${s.dataDir}/repos/@hashed`).length).toBe(before);
  });

  it('when a repository is removed, then it is gone and removing again succeeds', async () => {
    await rpc(s.client, s.client.RemoveRepository, { repository_id: 'repo-new' });
    expect(existsSync(s.repoPath('repo-new'))).toBe(false);
    await rpc(s.client, s.client.RemoveRepository, { repository_id: 'repo-new' });
    await expect(rpc(s.client, s.client.ListRefs, { repository_id: 'repo-new', prefixes: [] })).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('IsAncestor and MergeBase', () => {
  it('when asked about ancestry, then the answers match git merge-base --is-ancestor', async () => {
    const ask = (a: string, d: string) => rpc(s.client, s.client.IsAncestor, { repository_id: ID, ancestor_oid: a, descendant_oid: d });
    expect((await ask(base, target)).is_ancestor).toBe(true);
    expect((await ask(target, target)).is_ancestor).toBe(true);
    expect((await ask(source, target)).is_ancestor).toBe(false);
    expect((await ask(target, ff)).is_ancestor).toBe(true);
  });

  it('when the merge base is asked, then it equals git merge-base', async () => {
    const res = await rpc(s.client, s.client.MergeBase, { repository_id: ID, left_oid: target, right_oid: source });
    expect(res.oid).toBe(bareGit('merge-base', target, source).trim());
    expect(res.oid).toBe(base);
  });

  it('when a commit does not exist, then NOT_FOUND', async () => {
    await expect(rpc(s.client, s.client.IsAncestor, { repository_id: ID, ancestor_oid: 'd'.repeat(40), descendant_oid: target })).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('ResolveMergeTips', () => {
  const tips = (source_ref: string, target_ref: string) => rpc(s.client, s.client.ResolveMergeTips, { repository_id: ID, source_ref, target_ref });

  it('when both branches exist, then both tips and whether the target is an ancestor of the source, as ResolveRevision and IsAncestor answer', async () => {
    expect(await tips('refs/heads/ahead', 'refs/heads/main')).toEqual({ source_oid: ff, target_oid: target, target_in_source: true });
    expect(await tips('refs/heads/feature', 'refs/heads/main')).toEqual({ source_oid: source, target_oid: target, target_in_source: false });
    expect(await tips('refs/heads/main', 'refs/heads/main')).toEqual({ source_oid: target, target_oid: target, target_in_source: true });
  });

  it('when a branch does not exist or its name cannot be a ref, then its tip is empty and the other is still given', async () => {
    expect(await tips('refs/heads/gone', 'refs/heads/main')).toEqual({ source_oid: '', target_oid: target, target_in_source: false });
    expect(await tips('refs/heads/feature', 'refs/heads/bad..name')).toEqual({ source_oid: source, target_oid: '', target_in_source: false });
    expect(await tips('main', '')).toEqual({ source_oid: '', target_oid: '', target_in_source: false });
  });

  it('when a merge is to be prepared and only git can tell the ancestry, then the WriteMerge of that pair still writes the merge git would, and a conflict still lists its paths', async () => {
    expect(await rpc(s.client, s.client.ResolveMergeTips, { repository_id: ID, source_ref: 'refs/heads/feature', target_ref: 'refs/heads/ahead', prepare_merge: true })).toEqual({
      source_oid: source,
      target_oid: ff,
      target_in_source: false,
    });
    const sig = { name: 'bob', email: 'bob@example.com', timestamp: 1700000000 };
    const written = await rpc(s.client, s.client.WriteMerge, { repository_id: ID, ours_oid: ff, theirs_oid: source, author: sig, committer: sig, message: 'm\n' });
    expect(written.tree_oid).toBe(bareGit('merge-tree', '--write-tree', ff, source).trim());
    expect(bareGit('rev-parse', `${written.commit_oid}^1`, `${written.commit_oid}^2`).trim().split('\n')).toEqual([ff, source]);

    await rpc(s.client, s.client.ResolveMergeTips, { repository_id: ID, source_ref: 'refs/heads/conflict', target_ref: 'refs/heads/main', prepare_merge: true });
    await expect(rpc(s.client, s.client.WriteMerge, { repository_id: ID, ours_oid: target, theirs_oid: conflicting, author: sig, committer: sig, message: 'm\n' })).rejects.toMatchObject({
      kind: 'conflict',
      details: { conflicts: ['shared.txt'] },
    });
  });

  it('when the repository does not exist, then NOT_FOUND', async () => {
    await expect(rpc(s.client, s.client.ResolveMergeTips, { repository_id: 'repo-none', source_ref: 'refs/heads/a', target_ref: 'refs/heads/b' })).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('CheckMerge and WriteMerge', () => {
  it('when the merge is clean, then CheckMerge gives the merged tree', async () => {
    const res = await rpc(s.client, s.client.CheckMerge, { repository_id: ID, ours_oid: target, theirs_oid: source });
    expect(res).toEqual({ clean: true, conflicts: [], tree_oid: bareGit('merge-tree', '--write-tree', target, source).trim() });
  });

  it('when both sides changed a line, then CheckMerge lists the conflicting path', async () => {
    const res = await rpc(s.client, s.client.CheckMerge, { repository_id: ID, ours_oid: target, theirs_oid: conflicting });
    expect(res).toEqual({ clean: false, conflicts: ['shared.txt'], tree_oid: '' });
  });

  it('when a merge is written, then the commit has the merged tree, parents in order, +0000 idents and the exact message', async () => {
    const res = await rpc(s.client, s.client.WriteMerge, {
      repository_id: ID,
      ours_oid: target,
      theirs_oid: source,
      author: { name: 'bob', email: 'bob@example.com', timestamp: 1700000000 },
      committer: { name: 'bob', email: 'bob@example.com', timestamp: 1700000001 },
      message: "Merge branch 'feature' into main\n",
    });
    expect(bareGit('cat-file', '-p', res.commit_oid)).toBe(
      `tree ${res.tree_oid}\nparent ${target}\nparent ${source}\nauthor bob <bob@example.com> 1700000000 +0000\ncommitter bob <bob@example.com> 1700000001 +0000\n\nMerge branch 'feature' into main\n`,
    );
    expect(bareGit('ls-tree', '--name-only', res.tree_oid).trim().split('\n')).toEqual(['a.txt', 'b.txt', 'c.txt', 'shared.txt']);
    expect(bareGit('rev-parse', 'refs/heads/main').trim()).toBe(target);
  });

  it('when the merge conflicts, then FAILED_PRECONDITION Merge conflict with the paths', async () => {
    await expect(
      rpc(s.client, s.client.WriteMerge, {
        repository_id: ID,
        ours_oid: target,
        theirs_oid: conflicting,
        author: { name: 'bob', email: 'b@x', timestamp: 1 },
        committer: { name: 'bob', email: 'b@x', timestamp: 1 },
        message: 'm\n',
      }),
    ).rejects.toMatchObject({ kind: 'conflict', message: 'Merge conflict', details: { conflicts: ['shared.txt'] } });
  });

  it('when the histories are unrelated, then CheckMerge is not clean with no paths and WriteMerge refuses', async () => {
    const w = await makeWorkdir();
    await writeFiles(w, { 'other.txt': 'other\n' });
    const orphan = await commitAll(w, 'orphan');
    await pushTo(s, ID, w, 'main:refs/heads/orphan');
    expect(await rpc(s.client, s.client.CheckMerge, { repository_id: ID, ours_oid: target, theirs_oid: orphan })).toEqual({ clean: false, conflicts: [], tree_oid: '' });
    await expect(
      rpc(s.client, s.client.WriteMerge, { repository_id: ID, ours_oid: target, theirs_oid: orphan, author: { name: 'b', email: 'e', timestamp: 1 }, committer: { name: 'b', email: 'e', timestamp: 1 }, message: 'm\n' }),
    ).rejects.toMatchObject({ kind: 'conflict', message: 'Refusing to merge unrelated histories' });
  });

  it('when a signature would break the ident line, then INVALID_ARGUMENT', async () => {
    await expect(
      rpc(s.client, s.client.WriteMerge, { repository_id: ID, ours_oid: target, theirs_oid: source, author: { name: 'x>y', email: 'e', timestamp: 1 }, committer: { name: 'c', email: 'e', timestamp: 1 }, message: 'm\n' }),
    ).rejects.toMatchObject({ kind: 'validation' });
  });
});

describe('UpdateRef', () => {
  it('when the old value matches, then the ref moves, ListRefs sees it at once and one push event is journaled and published', async () => {
    const before = await rpc(s.client, s.client.ListRefs, { repository_id: ID, prefixes: ['refs/heads/main'] });
    expect(before.refs[0]!.target).toBe(target);
    received.length = 0;
    await rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/main', new_oid: ff, old_oid: target, context: ctx });
    expect(bareGit('rev-parse', 'refs/heads/main').trim()).toBe(ff);
    const after = await rpc(s.client, s.client.ListRefs, { repository_id: ID, prefixes: ['refs/heads/main'] });
    expect(after.refs[0]!.target).toBe(ff);
    await s.service.context.intents.settled(); // the event joins the journal after the answer
    await s.service.relay()!.stop();
    expect(received).toHaveLength(1);
    const e = received[0]! as EventEnvelope<PushPayload>;
    expect(e).toMatchObject({ kind: 'push', repository: { id: ID, owner: 'alice', name: 'demo' }, request_id: 'req-merge' });
    expect(e.payload).toEqual({
      event: 'push',
      ref: 'refs/heads/main',
      before: target,
      after: ff,
      created: false,
      deleted: false,
      forced: false,
      repository: { owner: 'alice', name: 'demo', full_name: 'alice/demo' },
      sender: { username: 'bob' },
      commits: [],
    });
    expect(await s.service.journal.pending()).toEqual([]);
  });

  it('when the ref moved meanwhile, then FAILED_PRECONDITION and the ref stays', async () => {
    await expect(rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/main', new_oid: source, old_oid: target, context: ctx })).rejects.toMatchObject({
      kind: 'conflict',
      message: `Ref changed: refs/heads/main is no longer at ${target}`,
    });
    expect(bareGit('rev-parse', 'refs/heads/main').trim()).toBe(ff);
  });

  it('when the ref must not exist but does, then FAILED_PRECONDITION; when it does not, then it is created', async () => {
    await expect(rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/main', new_oid: source, old_oid: ZERO, context: ctx })).rejects.toMatchObject({ kind: 'conflict' });
    await rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/created', new_oid: source, old_oid: ZERO, context: ctx });
    expect(bareGit('rev-parse', 'refs/heads/created').trim()).toBe(source);
  });

  it('when the ref is locked briefly, then the move is retried and succeeds; when it stays locked, then FAILED_PRECONDITION', async () => {
    const lock = `${s.repoPath(ID)}/refs/heads/locked.lock`;
    await rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/locked', new_oid: base, old_oid: ZERO, context: ctx });
    writeFileSync(lock, '');
    setTimeout(() => unlinkSync(lock), 40);
    await rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/locked', new_oid: source, old_oid: base, context: ctx });
    expect(bareGit('rev-parse', 'refs/heads/locked').trim()).toBe(source);
    writeFileSync(lock, '');
    try {
      await expect(rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/locked', new_oid: base, old_oid: source, context: ctx })).rejects.toMatchObject({
        kind: 'conflict',
        message: 'Ref changed: refs/heads/locked is being updated',
      });
    } finally {
      unlinkSync(lock);
    }
    expect(bareGit('rev-parse', 'refs/heads/locked').trim()).toBe(source);
  });

  it('when ten moves from the same old value race, then exactly one wins', async () => {
    const tip = bareGit('rev-parse', 'refs/heads/created').trim();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/created', new_oid: i % 2 ? ff : target, old_oid: tip, context: ctx })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ kind: 'conflict' });
    expect([ff, target]).toContain(bareGit('rev-parse', 'refs/heads/created').trim());
  });

  it('when a branch moves to a tip, a merge commit, then a new chain, then each push event lists exactly the commits new to the repository (as rev-list --not --all would)', async () => {
    // The relay was stopped above: events stay in the journal, in order.
    const commitsOfLastEvent = async () => {
      await s.service.context.intents.settled();
      const events = (await s.service.journal.pending()) as EventEnvelope<PushPayload>[];
      return events.at(-1)!.payload.commits.map((c) => [c.id, c.message]);
    };
    const move = (oldOid: string, newOid: string) => rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/merged', new_oid: newOid, old_oid: oldOid, context: ctx });
    // A tip another branch holds brings nothing new.
    await move(ZERO, ff);
    expect(await commitsOfLastEvent()).toEqual([]);
    // A merge commit of the old value and another branch's tip is the one new commit.
    const sig = { name: 'bob', email: 'bob@example.com', timestamp: 1_700_000_000 };
    const merge = (await rpc(s.client, s.client.WriteMerge, { repository_id: ID, ours_oid: ff, theirs_oid: source, author: sig, committer: sig, message: 'Merge feature\n' })).commit_oid;
    await move(ff, merge);
    expect(await commitsOfLastEvent()).toEqual([[merge, 'Merge feature\n']]);
    // A chain whose parent no ref held: every new commit, oldest first.
    const tree = bareGit('rev-parse', `${merge}^{tree}`).trim();
    const env = { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@x' };
    const commitTree = (parent: string, message: string) =>
      execFileSync('git', [`--git-dir=${s.repoPath(ID)}`, 'commit-tree', tree, '-p', parent, '-m', message], { env }).toString().trim();
    const one = commitTree(merge, 'one');
    const two = commitTree(one, 'two');
    await move(merge, two);
    expect(await commitsOfLastEvent()).toEqual([
      [one, 'one\n'],
      [two, 'two\n'],
    ]);
  });

  it.each([
    ['a leading dash', '-refs/heads/x'],
    ['..', 'refs/heads/a..b'],
    ['a NUL byte', 'refs/heads/a\0b'],
    ['HEAD@{1}', 'HEAD@{1}'],
    ['main~1', 'refs/heads/main~1'],
    ['an absurd length', `refs/heads/${'x'.repeat(5000)}`],
    ['an option', '--stdin'],
  ])('when the ref has %s, then INVALID_ARGUMENT and no ref changes', async (_what, ref) => {
    const refsBefore = bareGit('for-each-ref');
    await expect(rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref, new_oid: source, old_oid: ff, context: ctx })).rejects.toMatchObject({ kind: 'validation' });
    expect(bareGit('for-each-ref')).toBe(refsBefore);
  });
});

describe('bad input on reads', () => {
  it.each([
    ['a leading dash', '-n'],
    ['an option', '--output=/tmp/githost-pwned'],
    ['HEAD@{1}', 'HEAD@{1}'],
    ['main~1', 'main~1'],
    ['refs/heads/main^', 'refs/heads/main^'],
    ['..', 'refs/heads/a..b'],
    ['a NUL byte', 'refs/heads/a\0b'],
    ['an absurd length', `refs/heads/${'y'.repeat(5000)}`],
  ])('when a revision has %s, then INVALID_ARGUMENT', async (_what, revision) => {
    await expect(rpc(s.client, s.client.ResolveRevision, { repository_id: ID, revision })).rejects.toMatchObject({ kind: 'validation' });
    expect(existsSync('/tmp/githost-pwned')).toBe(false);
  });

  it.each([
    ['a leading slash', '/etc/passwd'],
    ['..', '../../../etc/passwd'],
    ['.. inside', 'a/../../x'],
    ['a NUL byte', 'a\0b'],
    ['a newline (a second cat-file command)', 'a.txt\ninfo HEAD'],
    ['an absurd length', 'z/'.repeat(5000)],
  ])('when a path has %s, then INVALID_ARGUMENT', async (_what, path) => {
    await expect(rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: target, path })).rejects.toMatchObject({ kind: 'validation' });
  });

  it('when a path has backslashes, then they are name bytes, not separators: ..\\x is a path that does not exist', async () => {
    await expect(rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: target, path: '..\\x' })).rejects.toMatchObject({ kind: 'not_found', message: 'Path not found: ..\\x' });
  });

  it('when a path starts with a dash, then it is just a path that does not exist', async () => {
    await expect(rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: target, path: '-n' })).rejects.toMatchObject({ kind: 'not_found', message: 'Path not found: -n' });
  });

  it('when a commit id is not hex, then INVALID_ARGUMENT', async () => {
    await expect(rpc(s.client, s.client.ReadCommit, { repository_id: ID, revision: '--all' })).rejects.toMatchObject({ kind: 'validation' });
    await expect(rpc(s.client, s.client.ListCommits, { repository_id: ID, commit_oid: 'HEAD', limit: 5, offset: 0 })).rejects.toMatchObject({ kind: 'validation' });
  });
});
