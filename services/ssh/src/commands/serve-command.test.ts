import { PassThrough, Readable } from 'node:stream';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { forbidden, unavailable } from '@githost/errors';
import type { Principal, RepoContext, RepoFields } from '@githost/identity';
import { createLogger } from '@githost/logging';
import { serveCommand, type CommandDeps, type GitRun, type SshCaller } from './serve-command.js';

const demo: RepoFields = { id: 'r1', owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', owner_id: 'u-alice' };
const secret: RepoFields = { ...demo, id: 'r2', name: 'secret', private: true };
const alice: SshCaller = { keyId: '1', kind: 'user', user: { id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: true } };
const bob: SshCaller = { keyId: '2', kind: 'user', user: { id: 'u-bob', username: 'bob', email: 'bob@example.com', is_admin: false } };
const deployKey = (readOnly: boolean): SshCaller => ({ keyId: '3', kind: 'deploy_key', repository: demo, readOnly });

let runs: GitRun[];
let budget: boolean;
let asked: Principal[];
let deps: CommandDeps;

/** Accounts as the tests need it: alice owns both repositories, bob may read the public one. */
function permissionOf(principal: Principal, repo: RepoFields): RepoContext['permission'] {
  if (principal.user_id === repo.owner_id) return 'admin';
  return repo.private ? 'none' : 'read';
}

beforeEach(() => {
  runs = [];
  budget = true;
  asked = [];
  deps = {
    authorize: async (principal, owner, name) => {
      asked.push(principal);
      const repo = [demo, secret].find((r) => r.owner === owner && r.name === name);
      return repo ? { ...repo, permission: permissionOf(principal, repo) } : null;
    },
    withinGitBudget: async () => budget,
    runGit: async (run, io) => {
      runs.push(run);
      io.stdout.write('git output');
      return 0;
    },
    lfsAuthentication: (principal, repo, operation) => ({ href: `http://githost.test/${repo.owner}/${repo.name}.git/info/lfs`, header: { Authorization: `RemoteAuth ${principal.username}:${operation}` }, expires_in: 900 }),
    newRequestId: () => 'req-1',
    logger: createLogger('ssh-test', 'silent'),
  };
});

async function serve(caller: SshCaller, line: string | null, env: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (b: Buffer) => out.push(b));
  stderr.on('data', (b: Buffer) => err.push(b));
  const status = await serveCommand(deps, caller, line, env, { stdin: Readable.from([]), stdout, stderr });
  return { status, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

describe('serveCommand (docs/decisions/ssh-server.md#one-authorisation-path)', () => {
  it('when a user asks for a shell, then the greeting and exit 1', async () => {
    expect(await serve(alice, null)).toEqual({ status: 1, stdout: '', stderr: "Hi alice! You've authenticated, but githost does not provide shell access.\n" });
  });

  it('when a deploy key asks for a shell, then the greeting names its repository', async () => {
    expect((await serve(deployKey(true), null)).stderr).toBe("Hi alice/demo! You've authenticated with a deploy key, but githost does not provide shell access.\n");
  });

  it('when the owner fetches, then git runs as her without site-admin powers, with GIT_PROTOCOL', async () => {
    expect(await serve(alice, "git-upload-pack '/alice/demo.git'", { GIT_PROTOCOL: 'version=2' })).toEqual({ status: 0, stdout: 'git output', stderr: '' });
    expect(runs).toEqual([{ command: 'git-upload-pack', repo: { ...demo, permission: 'admin' }, principal: { user_id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false }, requestId: 'req-1', gitProtocol: 'version=2' }]);
    expect(asked[0]?.is_admin).toBe(false);
  });

  it('when GIT_PROTOCOL is malformed, then it is dropped', async () => {
    await serve(alice, 'git-upload-pack alice/demo', { GIT_PROTOCOL: 'version=2; rm -rf /' });
    expect(runs[0]?.gitProtocol).toBeUndefined();
  });

  it('when a stranger fetches a private repository, then it answers as a missing one and git never runs', async () => {
    expect(await serve(bob, 'git-upload-pack alice/secret')).toEqual({ status: 1, stdout: '', stderr: 'Repository not found\n' });
    expect(await serve(bob, 'git-upload-pack alice/nothing')).toEqual({ status: 1, stdout: '', stderr: 'Repository not found\n' });
    expect(runs).toEqual([]);
  });

  it('when a reader pushes, then the write refusal HTTP gives', async () => {
    expect(await serve(bob, 'git-receive-pack alice/demo')).toEqual({ status: 1, stdout: '', stderr: 'You do not have write access to this repository\n' });
    expect(runs).toEqual([]);
  });

  it('when a read-only deploy key fetches its repository, then git runs with read; a push is refused', async () => {
    expect((await serve(deployKey(true), 'git-upload-pack alice/demo')).status).toBe(0);
    expect(runs[0]?.repo.permission).toBe('read');
    expect(runs[0]?.principal).toEqual({ user_id: 'u-alice', username: 'alice', email: '', is_admin: false });
    expect((await serve(deployKey(true), 'git-receive-pack alice/demo')).stderr).toBe('You do not have write access to this repository\n');
    expect(asked).toEqual([]);
  });

  it('when a write deploy key pushes its repository, then git runs with write', async () => {
    expect((await serve(deployKey(false), 'git-receive-pack /alice/demo.git')).status).toBe(0);
    expect(runs[0]?.repo.permission).toBe('write');
  });

  it('when a deploy key names another repository, even a public one, then it is not found', async () => {
    expect((await serve(deployKey(false), 'git-upload-pack alice/secret')).stderr).toBe('Repository not found\n');
  });

  it('when the git budget is spent, then the refusal and git never runs', async () => {
    budget = false;
    expect(await serve(alice, 'git-upload-pack alice/demo')).toEqual({ status: 1, stdout: '', stderr: 'Rate limit exceeded: too many git requests, try again in a minute\n' });
    expect(runs).toEqual([]);
  });

  it('when git-storage refuses before git starts, then its message and exit 1', async () => {
    deps.runGit = async () => {
      throw forbidden('Push refused: protected branch');
    };
    expect(await serve(alice, 'git-receive-pack alice/demo')).toEqual({ status: 1, stdout: '', stderr: 'Push refused: protected branch\n' });
  });

  it('when a dependency is down, then a one-line refusal', async () => {
    deps.authorize = async () => {
      throw unavailable('accounts unavailable');
    };
    expect(await serve(alice, 'git-upload-pack alice/demo')).toEqual({ status: 1, stdout: '', stderr: 'accounts unavailable\n' });
  });

  it('when git-lfs asks for a download credential, then the JSON git-lfs reads', async () => {
    const { status, stdout } = await serve(bob, 'git-lfs-authenticate alice/demo.git download');
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ href: 'http://githost.test/alice/demo.git/info/lfs', header: { Authorization: 'RemoteAuth bob:download' }, expires_in: 900 });
  });

  it('when a reader or a read-only deploy key asks for an upload credential, then refused', async () => {
    expect((await serve(bob, 'git-lfs-authenticate alice/demo.git upload')).stderr).toBe('You do not have write access to this repository\n');
    expect((await serve(deployKey(true), 'git-lfs-authenticate alice/demo.git upload')).stderr).toBe('You do not have write access to this repository\n');
  });

  it('when the command is not served, then one line and exit 1', async () => {
    expect(await serve(alice, 'env')).toEqual({ status: 1, stdout: '', stderr: 'githost serves only git-upload-pack, git-receive-pack and git-lfs-authenticate over SSH\n' });
  });
});
