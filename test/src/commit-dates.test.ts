import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, createRepo, createUser, eventually, git, gitWithInput, makeWorkdir, pushUrl, startReceiver, startTestGithost, type Receiver, type TestGithost, type TestUser } from './support/index.js';

// git-storage (the push webhook) and browse (`GET /commits`) read a commit's date with one parser
// (packages/git-records/src/commit.ts), so both give the date `git log --format=%aI` shows.
describe('a commit date, in the push webhook and in GET /commits', () => {
  let gh: TestGithost;
  let alice: TestUser;
  let receiver: Receiver;

  beforeAll(async () => {
    gh = await startTestGithost();
    alice = await createUser(gh, 'alice');
    await createRepo(gh, alice.token, 'dated');
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await gh?.stop();
  });

  it('when a pushed commit records its author offset as -0000, then the webhook and GET /commits both give the date git shows, ending in +00:00', async () => {
    expect((await api(gh, 'POST', '/api/repos/alice/dated/webhooks', { token: alice.token, body: { url: receiver.url } })).status).toBe(201);
    const work = makeWorkdir();
    const first = await commitFiles(work, { 'README.md': '# dated\n' }, 'first');
    const tree = await git(work, 'rev-parse', `${first}^{tree}`);
    const body = `tree ${tree}\nparent ${first}\nauthor Ann <ann@example.com> 1700000000 -0000\ncommitter Ann <ann@example.com> 1700000000 -0000\n\nwritten at UTC, offset -0000\n`;
    const sha = await gitWithInput(work, body, 'hash-object', '-w', '-t', 'commit', '--stdin');
    await git(work, 'update-ref', 'refs/heads/main', sha);
    const gitShows = await git(work, 'log', '-1', '--format=%aI', sha);
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'dated'), 'main');

    const push = await eventually(() => receiver.received.find((d) => d.body.event === 'push'));
    const commits = await api(gh, 'GET', '/api/repos/alice/dated/commits/main?limit=1');
    expect(commits.status).toBe(200);
    const pushed = (push.body.commits as { id: string; timestamp: string }[]).find((c) => c.id === sha);
    const listed = commits.body.commits[0];
    expect(listed.sha).toBe(sha);
    expect([gitShows, pushed?.timestamp, listed.author.date, listed.committer.date]).toEqual(Array(4).fill('2023-11-14T22:13:20+00:00'));
  });
});
