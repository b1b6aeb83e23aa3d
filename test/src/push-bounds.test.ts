import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PushPayload } from '@githost/git-storage';
import { api, commitFiles, createRepo, createUser, git, gitResult, gitWithInput, startTestGithost, watchPushes, type Receiver, type TestGithost, type TestUser } from './support/index.js';

/** Push bounds through the gateway with the real git client, default settings (docs/security.md#limits). */

let gh: TestGithost;
let alice: TestUser;
let receiver: Receiver<PushPayload>;
let work: string;
let origin: string;
let eventsUntilMarker: () => Promise<PushPayload[]>;

const remoteRefs = async () => (await git(work, 'ls-remote', origin)).split('\n').sort().join('\n');

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'bounds');
  ({ receiver, work, origin, eventsUntilMarker } = await watchPushes<PushPayload>(gh, alice, 'bounds'));
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await gh?.stop();
});

describe('push bounds through the gateway', () => {
  it('when a 101 MiB file is pushed, then git says "File big.bin is 101.00 MB; this exceeds the file size limit of 100.00 MB", nothing moves and no event is sent', async () => {
    const before = await remoteRefs();
    await commitFiles(work, { 'big.bin': Buffer.alloc(101 * 1024 * 1024, 'githost ') }, 'huge');
    const pushed = await gitResult(work, 'push', origin, 'main');
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain('remote: error: File big.bin is 101.00 MB; this exceeds the file size limit of 100.00 MB');
    expect(pushed.stderr).toContain('[remote rejected] main -> main (pre-receive hook declined)');
    expect(await remoteRefs()).toBe(before);
    await git(work, 'reset', '-q', '--hard', 'HEAD~1');
    expect(await eventsUntilMarker()).toEqual([]);
  }, 120_000);

  it('when a tree holds .git/config, then git\'s fsck refuses the push, browse never sees it and no event is sent', async () => {
    const before = await remoteRefs();
    const blob = await gitWithInput(work, '[core]\n\tfsmonitor = touch /tmp/pwned\n', 'hash-object', '-w', '--stdin');
    const config = await gitWithInput(work, `100644 blob ${blob}\tconfig\n`, 'mktree');
    const tree = await gitWithInput(work, `040000 tree ${config}\t.git\n`, 'mktree');
    const commit = await gitWithInput(work, 'evil\n', 'commit-tree', tree, '-p', 'HEAD');
    const pushed = await gitResult(work, 'push', origin, `${commit}:refs/heads/evil`);
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain("hasDotgit: contains '.git'");
    expect(pushed.stderr).toContain('[remote rejected]');
    expect(await remoteRefs()).toBe(before);
    const browsed = await api(gh, 'GET', `/api/repos/alice/bounds/commits/${commit}`, { token: alice.token });
    expect(browsed.status).toBe(404);
    expect(await eventsUntilMarker()).toEqual([]);
  });
});
