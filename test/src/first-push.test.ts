import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startReceiver } from '@githost/test-support';
import { api, commitFiles, createRepo, createUser, eventually, git, gitResult, makeWorkdir, pushUrl, startTestGithost, type Receiver, type TestGithost, type TestUser } from './support/index.js';

/**
 * services/accounts/README.md#default-branch through the gateway with the real git client: a repository
 * created with `default_branch: main` takes the branch its first push brings (git on Debian
 * still pushes `master`), at once and before anyone hears of the push; later pushes leave it.
 */

let gh: TestGithost;
let alice: TestUser;
let receiver: Receiver<{ ref: string }>;
/** The repository's default_branch as the API answered it while each push event was delivered. */
const defaultsAtDelivery: string[] = [];

const repoOf = async (name: string) => (await api(gh, 'GET', `/api/repos/alice/${name}`, { token: alice.token })).body;

async function workWith(branch: string): Promise<string> {
  const work = makeWorkdir();
  await commitFiles(work, { 'README.md': 'hello\n' }, 'first');
  await git(work, 'branch', '-q', '-m', branch);
  return work;
}

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  receiver = await startReceiver({
    answer: (_n, res, delivery) => {
      const name = (delivery.body as { repository: { name: string } }).repository.name;
      void repoOf(name).then((repo) => {
        defaultsAtDelivery.push(`${name} ${repo.default_branch}`);
        res.writeHead(200).end('ok');
      });
    },
  });
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await gh?.stop();
});

describe('the first push decides the default branch', () => {
  it('when master is pushed to a repository created with main, then the API, browse with an empty ref, a clone and the push event all say master at once', async () => {
    expect((await createRepo(gh, alice.token, 'git')).default_branch).toBe('main');
    expect((await api(gh, 'POST', '/api/repos/alice/git/webhooks', { token: alice.token, body: { url: `${receiver.url}/git`, events: 'push' } })).status).toBe(201);
    const work = await workWith('master');
    const sha = await git(work, 'rev-parse', 'HEAD');
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'git'), 'master');

    expect((await repoOf('git')).default_branch).toBe('master');
    const tree = await api(gh, 'GET', '/api/repos/alice/git/tree/', { token: alice.token });
    expect([tree.status, tree.body.ref]).toEqual([200, 'master']);
    const commits = await api(gh, 'GET', '/api/repos/alice/git/commits/', { token: alice.token });
    expect([commits.status, commits.body.ref, commits.body.commits[0].sha]).toEqual([200, 'master', sha]);
    const branches = await api(gh, 'GET', '/api/repos/alice/git/branches', { token: alice.token });
    expect(branches.body).toEqual({ branches: [{ name: 'master', sha, isDefault: true }], default_branch: 'master' });

    const copy = makeWorkdir();
    await git(copy, 'clone', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'git'), 'git');
    expect(await git(`${copy}/git`, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('master');

    await eventually(() => (defaultsAtDelivery.some((d) => d.startsWith('git ')) ? true : undefined));
    expect(defaultsAtDelivery.filter((d) => d.startsWith('git '))).toEqual(['git master']);
  });

  it('when a first push brings several branches, then the configured default if among them, else main, else master, else the first', async () => {
    const cases: Array<[string, string, string[], string]> = [
      ['keeps', 'main', ['dev', 'main'], 'main'],
      ['prefers-main', 'trunk', ['feature', 'master', 'main'], 'main'],
      ['first-one', 'main', ['dev', 'feature'], 'dev'],
    ];
    for (const [name, configured, pushed, expected] of cases) {
      await createRepo(gh, alice.token, name, { default_branch: configured });
      const work = await workWith('base');
      await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', name), ...pushed.map((b) => `base:refs/heads/${b}`));
      expect([name, (await repoOf(name)).default_branch]).toEqual([name, expected]);
    }
  });

  it('when later pushes add a branch or try to delete the default one, then the repository keeps its setting', async () => {
    await createRepo(gh, alice.token, 'keeps-setting');
    const origin = pushUrl(gh, 'alice', alice.token, 'alice', 'keeps-setting');
    const work = await workWith('master');
    await git(work, 'push', '-q', origin, 'master');
    expect((await repoOf('keeps-setting')).default_branch).toBe('master');
    await git(work, 'push', '-q', origin, 'master:refs/heads/dev');
    expect((await api(gh, 'PUT', '/api/repos/alice/keeps-setting/branch-protections/master', { token: alice.token, body: { allow_deletions: true } })).status).toBe(201);
    // git itself keeps the branch HEAD names (receive.denyDeleteCurrent).
    const deleted = await gitResult(work, 'push', origin, ':master');
    expect([deleted.code, deleted.stderr]).toEqual([1, expect.stringContaining('refusing to delete the current branch: refs/heads/master')]);
    await git(work, 'push', '-q', origin, 'master:refs/heads/other');
    expect((await repoOf('keeps-setting')).default_branch).toBe('master');
  });
});
