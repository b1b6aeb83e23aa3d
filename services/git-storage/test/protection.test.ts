import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { encodeIdentity, type Identity, type Permission } from '@githost/identity';
import { RULE_DEFAULTS, type BranchProtection } from '@githost/ref-policy';
import type { PushPayload, RepositoryDeletedPayload } from '../src/index.js';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, rpc, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

const ID = 'repo-protect';
const ZERO = '0'.repeat(40);
let s: TestStorage;
let url: string;
let work: string;
let c1: string;
let c2: string;

function identity(permission: Permission, repositoryId = ID): Identity {
  return {
    principal: { user_id: 'u-bob', username: 'bob', email: 'bob@example.com', is_admin: false },
    repo: { id: repositoryId, owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission, owner_id: 'u-alice' },
    request_id: 'req-protect',
    issued_at: Date.now(),
  };
}

function headerArgs(permission: Permission = 'write'): string[] {
  return Object.entries(encodeIdentity(identity(permission), s.secret)).flatMap(([k, v]) => ['-c', `http.extraHeader=${k}: ${v}`]);
}

const bareGit = (...args: string[]) => execFileSync('git', [`--git-dir=${s.repoPath(ID)}`, ...args]).toString().trim();
const refsNow = () => bareGit('for-each-ref', '--format=%(objectname) %(refname)');
const rule = (pattern: string, fields: Partial<BranchProtection> = {}): BranchProtection => ({ pattern, ...RULE_DEFAULTS, ...fields });

/** Pushes through smart HTTP; resolves git's stderr on failure, undefined on success. */
async function push(permission: Permission, ...args: string[]): Promise<string | undefined> {
  try {
    await git(work, ...headerArgs(permission), 'push', '-q', url, ...args);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

async function drain(): Promise<Array<PushPayload | RepositoryDeletedPayload>> {
  await s.service.context.intents.settled(); // an UpdateRef's event joins the journal after its answer
  const events = await s.service.journal.pending();
  for (const e of events) await s.service.journal.remove(e.id);
  return events.map((e) => e.payload as PushPayload);
}

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, ID);
  url = `http://127.0.0.1:${s.httpPort}/alice/demo.git`;
  work = await makeWorkdir();
  await writeFiles(work, { 'a.txt': 'one\n' });
  c1 = await commitAll(work, 'one');
  await writeFiles(work, { 'a.txt': 'two\n' });
  c2 = await commitAll(work, 'two');
  expect(await push('write', 'main', `${c1}:refs/heads/feature`, `${c1}:refs/tags/v1`)).toBeUndefined();
});

beforeEach(async () => {
  s.policies!.set(ID, {});
  await drain();
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

describe('pushes checked against the repository policy', () => {
  it('when a rebased feature branch is force-pushed, then it is accepted and the event says forced with the commits new to the repository', async () => {
    await git(work, 'checkout', '-q', '-b', 'feature', c1);
    await writeFiles(work, { 'f.txt': 'feature\n' });
    const f1 = await commitAll(work, 'feature work');
    expect(await push('write', 'feature')).toBeUndefined();
    await drain();
    await git(work, 'reset', '-q', '--hard', c2);
    await writeFiles(work, { 'f.txt': 'feature, rebased\n' });
    const f2 = await commitAll(work, 'feature work, rebased');
    expect(await push('write', '--force', 'feature')).toBeUndefined();
    expect(bareGit('rev-parse', 'refs/heads/feature')).toBe(f2);
    const events = (await drain()) as PushPayload[];
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ ref: 'refs/heads/feature', before: f1, after: f2, created: false, deleted: false, forced: true });
    expect(events[0]!.commits.map((c) => c.id)).toEqual([f2]);
    await git(work, 'checkout', '-q', 'main');
  });

  it('when the default branch is force-pushed or deleted, then each is refused with its reason, nothing moves and no event is journaled', async () => {
    const before = refsNow();
    await git(work, 'checkout', '-q', '-b', 'rewrite', c1);
    await writeFiles(work, { 'x.txt': 'rewrite\n' });
    await commitAll(work, 'rewrite');
    const forced = await push('write', '--force', 'rewrite:main');
    expect(forced).toContain('remote: protected branch main: force push not allowed');
    expect(forced).toContain('[remote rejected] rewrite -> main (pre-receive hook declined)');
    const deleted = await push('write', ':main');
    expect(deleted).toContain('remote: protected branch main: deletion not allowed');
    expect(refsNow()).toBe(before);
    expect(await drain()).toEqual([]);
    await git(work, 'checkout', '-q', 'main');
  });

  it('when one ref of a push is refused, then the whole push is refused and no ref moves', async () => {
    const before = refsNow();
    const err = await push('write', `${c2}:refs/heads/fine`, ':main');
    expect(err).toContain('remote: protected branch main: deletion not allowed');
    expect(err).toContain('-> fine (pre-receive hook declined)');
    expect(refsNow()).toBe(before);
    expect(await drain()).toEqual([]);
  });

  it('when a tag is moved or deleted, then it is refused; once the owner allows tag changes, both are accepted', async () => {
    const before = refsNow();
    expect(await push('write', '--force', `${c2}:refs/tags/v1`)).toContain('remote: tag v1: moving an existing tag not allowed');
    expect(await push('write', ':refs/tags/v1')).toContain('remote: tag v1: deletion not allowed');
    expect(refsNow()).toBe(before);
    expect(await drain()).toEqual([]);
    expect(await push('write', `${c2}:refs/tags/v2`)).toBeUndefined(); // creating one is free
    s.policies!.set(ID, { allow_tag_changes: true });
    expect(await push('write', '--force', `${c1}:refs/tags/v2`)).toBeUndefined();
    expect(bareGit('rev-parse', 'refs/tags/v2')).toBe(c1);
    expect(await push('write', ':refs/tags/v2')).toBeUndefined();
    expect(() => bareGit('rev-parse', '--verify', '-q', 'refs/tags/v2')).toThrow();
    const events = (await drain()) as PushPayload[];
    expect(events.map((e) => [e.ref, e.created, e.deleted])).toEqual([
      ['refs/tags/v2', true, false],
      ['refs/tags/v2', false, false],
      ['refs/tags/v2', false, true],
    ]);
  });

  it('when a ref outside refs/heads/ and refs/tags/ is pushed, then it is refused', async () => {
    const err = await push('write', `${c2}:refs/meta/x`);
    expect(err).toContain('remote: refs/meta/x: only refs/heads/ and refs/tags/ can be pushed');
    expect(() => bareGit('rev-parse', '--verify', '-q', 'refs/meta/x')).toThrow();
    expect(await drain()).toEqual([]);
  });

  it('when a rule restricts pushes, then writers are refused under `admin`, the owner is not, and nobody may push under `nobody`', async () => {
    await git(work, 'checkout', '-q', '-b', 'release/1', c1);
    expect(await push('write', 'release/1')).toBeUndefined();
    await drain();
    await writeFiles(work, { 'r.txt': 'release\n' });
    const r2 = await commitAll(work, 'release fix');
    s.policies!.set(ID, { protections: [rule('release/*', { push: 'admin' })] });
    expect(await push('write', 'release/1')).toContain('remote: protected branch release/1: only the repository owner and site admins may push');
    expect(await push('admin', 'release/1')).toBeUndefined();
    expect(bareGit('rev-parse', 'refs/heads/release/1')).toBe(r2);
    s.policies!.set(ID, { protections: [rule('release/*', { push: 'nobody' })] });
    expect(await push('admin', `${c1}:refs/heads/release/2`)).toContain('remote: protected branch release/2: direct pushes not allowed, use a merge request');
    await git(work, 'checkout', '-q', 'main');
  });

  it('when a rule allows force pushes and deletions on the default branch, then both are accepted and the event says forced', async () => {
    await git(work, 'branch', '-f', 'scratch', c2);
    expect(await push('write', 'scratch')).toBeUndefined();
    await drain();
    s.policies!.set(ID, { default_branch: 'scratch', protections: [rule('scratch', { allow_force_pushes: true, allow_deletions: true })] });
    await git(work, 'checkout', '-q', '-b', 'other', c1);
    await writeFiles(work, { 'o.txt': 'other\n' });
    const o = await commitAll(work, 'other');
    await git(work, 'checkout', '-q', 'main');
    expect(await push('write', '--force', `${o}:refs/heads/scratch`)).toBeUndefined();
    expect(await push('write', ':scratch')).toBeUndefined();
    const events = (await drain()) as PushPayload[];
    expect(events.map((e) => [e.forced, e.deleted])).toEqual([
      [true, false],
      [false, true],
    ]);
  });

  it('when the policy cannot be read, then the push is refused with a clear message and nothing changes', async () => {
    const before = refsNow();
    s.policies!.set(ID, 'unavailable');
    const err = await push('write', `${c2}:refs/heads/while-down`);
    expect(err).toContain("remote: push refused: could not read the repository's protection rules; nothing was changed, try again");
    expect(refsNow()).toBe(before);
    expect(await drain()).toEqual([]);
  });

  it('when a repository made before protection rules still says receive.denyNonFastForwards=true, then a feature branch can be force-pushed all the same', async () => {
    execFileSync('git', [`--git-dir=${s.repoPath(ID)}`, 'config', 'receive.denyNonFastForwards', 'true']);
    try {
      await git(work, 'branch', '-f', 'legacy', c2);
      expect(await push('write', 'legacy')).toBeUndefined();
      expect(await push('write', '--force', `${c1}:refs/heads/legacy`)).toBeUndefined();
      expect(bareGit('rev-parse', 'refs/heads/legacy')).toBe(c1);
    } finally {
      execFileSync('git', [`--git-dir=${s.repoPath(ID)}`, 'config', '--unset', 'receive.denyNonFastForwards']);
    }
  });
});

describe('UpdateRef checked against the same policy', () => {
  const ctx = { owner: 'alice', name: 'demo', pusher: 'carol', request_id: 'req-update' };

  it('when a service asks to rewrite or delete the default branch, then PERMISSION_DENIED with the reason, nothing moves and no event', async () => {
    const main = bareGit('rev-parse', 'refs/heads/main');
    expect(main).toBe(c2);
    await expect(rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/main', new_oid: c1, old_oid: c2, context: ctx })).rejects.toMatchObject({
      kind: 'forbidden',
      message: 'protected branch main: force push not allowed',
      cause: expect.objectContaining({ code: 7 }),
    });
    await expect(rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/main', new_oid: ZERO, old_oid: c2, context: ctx })).rejects.toMatchObject({
      kind: 'forbidden',
      message: 'protected branch main: deletion not allowed',
    });
    await expect(rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/meta/x', new_oid: c1, old_oid: ZERO, context: ctx })).rejects.toMatchObject({ kind: 'forbidden' });
    expect(bareGit('rev-parse', 'refs/heads/main')).toBe(main);
    expect(await drain()).toEqual([]);
  });

  it('when a service asks to create a branch named HEAD or in NFD, then PERMISSION_DENIED naming the rule, as a push hears it', async () => {
    await expect(rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/HEAD', new_oid: c1, old_oid: ZERO, context: ctx })).rejects.toMatchObject({
      kind: 'forbidden',
      message: 'branch HEAD: not a valid name, it is HEAD, which git and the API read as the default branch',
    });
    await expect(rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/cafe\u0301', new_oid: c1, old_oid: ZERO, context: ctx })).rejects.toMatchObject({ kind: 'forbidden' });
    expect(() => bareGit('rev-parse', '--verify', '-q', 'refs/heads/HEAD')).toThrow();
    expect(await drain()).toEqual([]);
  });

  it('when the caller works from a stale value of a protected ref, then it hears that the ref changed', async () => {
    await expect(rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/main', new_oid: c1, old_oid: 'f'.repeat(40), context: ctx })).rejects.toMatchObject({ kind: 'conflict' });
  });

  it('when a `nobody` rule protects a branch, then a merge (UpdateRef) still moves it; a rewrite of an unprotected branch says forced', async () => {
    await git(work, 'branch', '-f', 'merged-only', c1);
    expect(await push('write', 'merged-only')).toBeUndefined();
    await drain();
    s.policies!.set(ID, { protections: [rule('merged-only', { push: 'nobody' })] });
    await rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/merged-only', new_oid: c2, old_oid: c1, context: ctx });
    await git(work, 'branch', '-f', 'loose', c2);
    expect(await push('write', 'loose')).toBeUndefined();
    await rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/loose', new_oid: c1, old_oid: c2, context: ctx });
    const events = (await drain()) as PushPayload[];
    expect(events.map((e) => [e.ref, e.forced, e.sender.username])).toEqual([
      ['refs/heads/merged-only', false, 'carol'],
      ['refs/heads/loose', false, 'bob'],
      ['refs/heads/loose', true, 'carol'],
    ]);
  });

  it('when the policy cannot be read, then UNAVAILABLE and nothing moves', async () => {
    s.policies!.set(ID, 'unavailable');
    await expect(rpc(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/new-one', new_oid: c1, old_oid: ZERO, context: ctx })).rejects.toMatchObject({ kind: 'unavailable' });
    expect(() => bareGit('rev-parse', '--verify', '-q', 'refs/heads/new-one')).toThrow();
    expect(await drain()).toEqual([]);
  });
});

describe('squash and repository_deleted', () => {
  it('when a squash is written, then the commit has one parent (ours) and the tree git merge-tree --write-tree gives', async () => {
    await git(work, 'checkout', '-q', '-b', 'to-squash', c1);
    await writeFiles(work, { 's1.txt': 's1\n' });
    await commitAll(work, 's1');
    await writeFiles(work, { 's2.txt': 's2\n' });
    const theirs = await commitAll(work, 's2');
    await git(work, 'checkout', '-q', 'main');
    expect(await push('write', 'to-squash')).toBeUndefined();
    const sig = { name: 'Merger', email: 'm@example.com', timestamp: 1700000000 };
    const res = await rpc(s.client, s.client.WriteMerge, { repository_id: ID, ours_oid: c2, theirs_oid: theirs, author: { ...sig, name: 'Author' }, committer: sig, message: 'Squash\n', squash: true });
    expect(bareGit('rev-list', '--parents', '-n', '1', res.commit_oid)).toBe(`${res.commit_oid} ${c2}`);
    const expected = bareGit('merge-tree', '--write-tree', c2, theirs);
    expect(bareGit('rev-parse', `${res.commit_oid}^{tree}`)).toBe(expected);
    expect(res.tree_oid).toBe(expected);
    expect(bareGit('cat-file', '-p', res.commit_oid)).toContain('author Author <m@example.com> 1700000000 +0000');
  });

  it('when a repository is removed with a context, then repository_deleted is journaled after it is gone; without one, nothing is', async () => {
    await createTestRepository(s, 'repo-undo');
    await rpc(s.client, s.client.RemoveRepository, { repository_id: 'repo-undo' });
    expect(await s.service.journal.pending()).toEqual([]);
    await createTestRepository(s, 'repo-gone');
    await rpc(s.client, s.client.RemoveRepository, { repository_id: 'repo-gone', context: { owner: 'alice', name: 'gone', pusher: 'alice', request_id: 'req-del' } });
    expect(() => execFileSync('git', [`--git-dir=${s.repoPath('repo-gone')}`, 'rev-parse', '--git-dir'], { stdio: 'ignore' })).toThrow();
    const events = await s.service.journal.pending();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'repository_deleted', repository: { id: 'repo-gone', owner: 'alice', name: 'gone' }, request_id: 'req-del' });
    expect(events[0]!.payload).toEqual({ event: 'repository_deleted', repository: { owner: 'alice', name: 'gone', full_name: 'alice/gone' }, sender: { username: 'alice' } });
    await drain();
  });
});
