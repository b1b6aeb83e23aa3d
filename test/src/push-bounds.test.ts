import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, createRepo, createUser, eventually, git, gitResult, gitWithInput, makeWorkdir, pushUrl, startReceiver, startTestGithost, type Receiver, type TestGithost, type TestUser } from './support/index.js';

/** Push bounds through the gateway with the real git client, default settings (git-storage README "Push bounds"). */
interface PushBody {
  event: string;
  ref: string;
  after: string;
}

let gh: TestGithost;
let alice: TestUser;
let receiver: Receiver<PushBody>;
let work: string;
let origin: string;
let seen = 0;

const remoteRefs = async () => (await git(work, 'ls-remote', origin)).split('\n').sort().join('\n');

/** Events delivered since the last call, waiting until a push of a marker branch arrives, so "no
 *  event" means nothing came before an event that did. */
async function eventsUntilMarker(): Promise<PushBody[]> {
  const marker = `marker-${seen}`;
  await git(work, 'push', '-q', origin, `HEAD:refs/heads/${marker}`);
  await eventually(() => (receiver.received.some((d) => d.body.ref === `refs/heads/${marker}`) ? true : undefined));
  const fresh = receiver.received.slice(seen).map((d) => d.body);
  seen = receiver.received.length;
  return fresh.filter((e) => !e.ref.startsWith('refs/heads/marker-'));
}

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'bounds');
  receiver = await startReceiver<PushBody>();
  const hook = await api(gh, 'POST', '/api/repos/alice/bounds/webhooks', { token: alice.token, body: { url: `${receiver.url}/bounds`, events: 'push' } });
  expect(hook.status).toBe(201);
  origin = pushUrl(gh, 'alice', alice.token, 'alice', 'bounds');
  work = makeWorkdir();
  await commitFiles(work, { 'README.md': '# bounds\n' }, 'base');
  await git(work, 'push', '-q', origin, 'main');
  await eventsUntilMarker();
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
