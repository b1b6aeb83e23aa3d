import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PushPayload } from '@githost/git-storage';
import { addCollaborator, api, commitFiles, createRepo, createUser, git, gitResult, startTestGithost, watchPushes, type Receiver, type TestGithost, type TestUser } from './support/index.js';

/** Branch and tag protection through the gateway with the real git client (docs/decisions/branch-protection.md). */

let gh: TestGithost;
let alice: TestUser;
let bob: TestUser;
let receiver: Receiver<PushPayload>;
let work: string;
let origin: string;
let eventsUntilMarker: () => Promise<PushPayload[]>;

const ZERO = '0'.repeat(40);
const remoteRefs = async () => (await git(work, 'ls-remote', origin)).split('\n').filter((l) => !l.endsWith('\tHEAD')).sort().join('\n');

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  bob = await createUser(gh, 'bob');
  await createRepo(gh, alice.token, 'prot');
  await addCollaborator(gh, alice.token, 'alice', 'prot', 'bob', 'write');
  ({ receiver, work, origin, eventsUntilMarker } = await watchPushes<PushPayload>(gh, alice, 'prot', { pusher: bob, tags: ['v1'] }));
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await gh?.stop();
});

describe('protection through the gateway', () => {
  it('when a writer rebases a feature branch and force-pushes it, then it is accepted and the push event says forced with the rebased commits', async () => {
    await git(work, 'checkout', '-q', '-b', 'feature');
    const f1 = await commitFiles(work, { 'f.txt': 'feature\n' }, 'feature work');
    await git(work, 'push', '-q', origin, 'feature');
    await git(work, 'checkout', '-q', 'main');
    const m2 = await commitFiles(work, { 'README.md': '# prot\n\nmain moves on\n' }, 'main moves on');
    await git(work, 'push', '-q', origin, 'main');
    await git(work, 'checkout', '-q', 'feature');
    await git(work, 'rebase', '-q', 'main');
    const f2 = await git(work, 'rev-parse', 'HEAD');
    expect(f2).not.toBe(f1);
    const pushed = await gitResult(work, 'push', origin, '--force', 'feature');
    expect(pushed.code).toBe(0);
    await git(work, 'checkout', '-q', 'main');
    const events = await eventsUntilMarker();
    expect(events.map((e) => [e.ref, e.created, e.forced])).toEqual([
      ['refs/heads/feature', true, false],
      ['refs/heads/main', false, false],
      ['refs/heads/feature', false, true],
    ]);
    const forced = events[2]!;
    expect(forced).toMatchObject({ event: 'push', before: f1, after: f2, deleted: false, sender: { username: 'bob' } });
    expect(forced.commits.map((c) => [c.id, c.message])).toEqual([[f2, 'feature work\n']]);
    expect(await git(work, 'rev-parse', 'HEAD')).toBe(m2);
  });

  it('when the default branch is force-pushed or deleted, then git shows the reason, nothing moves and no event is sent', async () => {
    const before = await remoteRefs();
    await git(work, 'checkout', '-q', '-b', 'rewrite', 'main~1');
    await commitFiles(work, { 'x.txt': 'history rewritten\n' }, 'rewrite');
    const forced = await gitResult(work, 'push', origin, '--force', 'rewrite:main');
    expect(forced.code).not.toBe(0);
    expect(forced.stderr).toContain('remote: protected branch main: force push not allowed');
    expect(forced.stderr).toContain('[remote rejected] rewrite -> main (pre-receive hook declined)');
    const deleted = await gitResult(work, 'push', origin, ':main');
    expect(deleted.code).not.toBe(0);
    expect(deleted.stderr).toContain('remote: protected branch main: deletion not allowed');
    await git(work, 'checkout', '-q', 'main');
    expect(await remoteRefs()).toBe(before);
    expect(await eventsUntilMarker()).toEqual([]);
  });

  it('when an existing tag is moved or deleted, then it is refused; once the owner allows tag changes, both go through', async () => {
    const v1 = await git(work, 'rev-parse', 'v1');
    await git(work, 'tag', '-f', 'v1', 'main');
    const moved = await gitResult(work, 'push', origin, '--force', 'v1');
    expect(moved.stderr).toContain('remote: tag v1: moving an existing tag not allowed');
    const deleted = await gitResult(work, 'push', origin, ':refs/tags/v1');
    expect(deleted.stderr).toContain('remote: tag v1: deletion not allowed');
    expect((await git(work, 'ls-remote', origin, 'refs/tags/v1')).split('\t')[0]).toBe(v1);
    expect(await eventsUntilMarker()).toEqual([]);

    const allowed = await api(gh, 'PATCH', '/api/repos/alice/prot', { token: alice.token, body: { allow_tag_changes: true } });
    expect([allowed.status, allowed.body.allow_tag_changes]).toEqual([200, true]);
    expect((await gitResult(work, 'push', origin, '--force', 'v1')).code).toBe(0);
    expect((await gitResult(work, 'push', origin, ':refs/tags/v1')).code).toBe(0);
    const events = await eventsUntilMarker();
    expect(events.map((e) => [e.ref, e.before === v1, e.deleted, e.after === ZERO])).toEqual([
      ['refs/tags/v1', true, false, false],
      ['refs/tags/v1', false, true, true],
    ]);
  });

  it('when a ref outside refs/heads/ and refs/tags/ is pushed, then git shows the refusal and the ref does not exist', async () => {
    const res = await gitResult(work, 'push', origin, 'main:refs/meta/x');
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('remote: refs/meta/x: only refs/heads/ and refs/tags/ can be pushed');
    expect(await git(work, 'ls-remote', origin, 'refs/meta/x')).toBe('');
    expect(await eventsUntilMarker()).toEqual([]);
  });
});
