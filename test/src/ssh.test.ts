import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PushPayload } from '@githost/git-storage';
import { generateSshKey } from '@githost/test-support';
import { api, commitFiles, createRepo, createUser, eventually, git, gitResultWithEnv, makeWorkdir, startReceiver, startTestGithost, type GitResult, type Receiver, type TestGithost, type TestUser } from './support/index.js';

/** git over SSH with the real OpenSSH client (services/ssh/README.md, docs/decisions/ssh-server.md). */
let gh: TestGithost;
let alice: TestUser;
let bob: TestUser;
let keyDir: string;
let knownHosts: string;
let aliceKey: string;
let bobKey: string;
let receiver: Receiver<PushPayload>;

/** A key made by ssh-keygen, written 0600 for `ssh -i`, registered with `register` (unless null). */
async function keyFile(name: string, register: ((publicKey: string) => Promise<unknown>) | null): Promise<string> {
  const made = await generateSshKey('ed25519', { comment: name });
  const file = path.join(keyDir, name);
  writeFileSync(file, made.privateKey, { mode: 0o600 });
  if (register) await register(made.publicKey);
  return file;
}

const userKey = (user: TestUser) => async (key: string) => expect((await api(gh, 'POST', '/api/user/keys', { token: user.token, body: { key } })).status).toBe(201);
const deployKey = (repo: string, readOnly: boolean) => async (key: string) =>
  expect((await api(gh, 'POST', `/api/repos/alice/${repo}/keys`, { token: alice.token, body: { title: `deploy ${repo}`, key, read_only: readOnly } })).status).toBe(201);

function sshOptions(key: string): string[] {
  return ['-i', key, '-p', String(gh.sshPort), '-o', 'IdentitiesOnly=yes', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'StrictHostKeyChecking=accept-new', '-o', 'BatchMode=yes', '-F', '/dev/null'];
}

/** `ssh` itself: exit status and what it wrote. */
function ssh(key: string, ...args: string[]): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile('ssh', [...sshOptions(key), ...args], { timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
}

const remote = (repo: string) => `ssh://git@127.0.0.1:${gh.sshPort}/${repo}.git`;
const viaSsh = (key: string, extra: Record<string, string> = {}) => ({ GIT_SSH_COMMAND: `ssh ${sshOptions(key).join(' ')}`, ...extra });

beforeAll(async () => {
  gh = await startTestGithost();
  keyDir = mkdtempSync(path.join(tmpdir(), 'githost-e2e-ssh-'));
  knownHosts = path.join(keyDir, 'known_hosts');
  [alice, bob] = [await createUser(gh, 'alice'), await createUser(gh, 'bob')];
  aliceKey = await keyFile('alice', userKey(alice));
  bobKey = await keyFile('bob', userKey(bob));
  await createRepo(gh, alice.token, 'demo');
  await createRepo(gh, alice.token, 'secret', { private: true });
  receiver = await startReceiver<PushPayload>();
  expect((await api(gh, 'POST', '/api/repos/alice/demo/webhooks', { token: alice.token, body: { url: `${receiver.url}/demo`, events: 'push' } })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await gh?.stop();
});

describe('git over SSH', () => {
  it('when alice pushes, clones and fetches with her key, then it works over protocol v2 and v0, and the push fires the push webhook naming her', async () => {
    const work = makeWorkdir();
    const first = await commitFiles(work, { 'README.md': '# demo\n' }, 'first');
    const pushed = await gitResultWithEnv(work, viaSsh(aliceKey), 'push', remote('alice/demo'), 'main');
    expect([pushed.code, pushed.stderr]).toEqual([0, expect.stringContaining('* [new branch]      main -> main')]);
    const event = await eventually(() => receiver.received.find((d) => d.body.after === first));
    expect(event.body).toMatchObject({ ref: 'refs/heads/main', before: '0'.repeat(40), after: first, sender: { username: 'alice' } });

    for (const version of ['2', '0']) {
      const dir = makeWorkdir();
      const cloned = await gitResultWithEnv(dir, viaSsh(aliceKey, { GIT_TRACE_PACKET: '1' }), '-c', `protocol.version=${version}`, 'clone', remote('alice/demo'), 'copy');
      expect(cloned.code).toBe(0);
      expect(cloned.stderr.includes('< version 2')).toBe(version === '2');
      expect(await git(path.join(dir, 'copy'), 'rev-parse', 'HEAD')).toBe(first);
    }
    // scp-like form and the path without `.git`, with a fetch of a new commit.
    const dir = makeWorkdir();
    await git(dir, 'init', '-q');
    const second = await commitFiles(work, { 'b.txt': 'b\n' }, 'second');
    expect((await gitResultWithEnv(work, viaSsh(aliceKey), 'push', `ssh://git@127.0.0.1:${gh.sshPort}/alice/demo`, 'main')).code).toBe(0);
    expect((await gitResultWithEnv(dir, viaSsh(aliceKey), 'fetch', remote('alice/demo'), 'main')).code).toBe(0);
    expect(await git(dir, 'rev-parse', 'FETCH_HEAD')).toBe(second);
  });

  it('when a user asks for a shell, then the greeting and exit 1; a deploy key names its repository', async () => {
    expect(await ssh(aliceKey, '-T', 'git@127.0.0.1')).toMatchObject({ code: 1, stderr: expect.stringContaining("Hi alice! You've authenticated, but githost does not provide shell access.") });
    const deploy = await keyFile('deploy-shell', deployKey('demo', true));
    expect(await ssh(deploy, '-T', 'git@127.0.0.1')).toMatchObject({ code: 1, stderr: expect.stringContaining("Hi alice/demo! You've authenticated with a deploy key, but githost does not provide shell access.") });
  });

  it('when bob reaches alice\'s private repository, then it answers as a missing one; pushing to her public one is refused', async () => {
    const dir = makeWorkdir();
    const cloned = await gitResultWithEnv(dir, viaSsh(bobKey), 'clone', remote('alice/secret'), 'x');
    expect([cloned.code, cloned.stderr]).toEqual([128, expect.stringContaining('Repository not found')]);
    expect((await gitResultWithEnv(dir, viaSsh(bobKey), 'clone', remote('alice/nothing'), 'y')).stderr).toContain('Repository not found');
    await git(dir, 'init', '-q', 'z');
    await commitFiles(path.join(dir, 'z'), { 'x.txt': 'x\n' }, 'x');
    const pushed = await gitResultWithEnv(path.join(dir, 'z'), viaSsh(bobKey), 'push', remote('alice/demo'), 'HEAD:refs/heads/bob');
    expect([pushed.code, pushed.stderr]).toEqual([128, expect.stringContaining('You do not have write access to this repository')]);
  });

  it('when a read-only deploy key pushes, then git shows the refusal; a write deploy key pushes, and neither opens another repository', async () => {
    const readOnly = await keyFile('deploy-ro', deployKey('demo', true));
    const writer = await keyFile('deploy-rw', deployKey('demo', false));
    const dir = makeWorkdir();
    expect((await gitResultWithEnv(dir, viaSsh(readOnly), 'clone', remote('alice/demo'), 'ro')).code).toBe(0);
    const work = path.join(dir, 'ro');
    const sha = await commitFiles(work, { 'deploy.txt': 'by a deploy key\n' }, 'deploy');
    const refused = await gitResultWithEnv(work, viaSsh(readOnly), 'push', remote('alice/demo'), 'HEAD:refs/heads/deployed');
    expect([refused.code, refused.stderr]).toEqual([128, expect.stringContaining('You do not have write access to this repository')]);
    const pushed = await gitResultWithEnv(work, viaSsh(writer), 'push', remote('alice/demo'), 'HEAD:refs/heads/deployed');
    expect(pushed.code).toBe(0);
    // The pusher of a deploy key's push is the repository's owner (docs/decisions/ssh-server.md#deploy-keys).
    expect((await eventually(() => receiver.received.find((d) => d.body.after === sha))).body.sender).toMatchObject({ username: 'alice' });
    expect((await gitResultWithEnv(dir, viaSsh(writer), 'clone', remote('alice/secret'), 'other')).stderr).toContain('Repository not found');
  });

  it('when the default branch is force-pushed over SSH, then git shows the same refusal as over HTTP and nothing moves', async () => {
    const dir = makeWorkdir();
    expect((await gitResultWithEnv(dir, viaSsh(aliceKey), 'clone', remote('alice/demo'), 'w')).code).toBe(0);
    const work = path.join(dir, 'w');
    const before = await git(work, 'rev-parse', 'HEAD');
    await git(work, 'reset', '-q', '--hard', 'HEAD~1');
    await commitFiles(work, { 'rewrite.txt': 'rewrite\n' }, 'rewrite');
    const forced = await gitResultWithEnv(work, viaSsh(aliceKey), 'push', '--force', remote('alice/demo'), 'HEAD:main');
    expect(forced.code).not.toBe(0);
    expect(forced.stderr).toContain('remote: protected branch main: force push not allowed');
    expect(forced.stderr).toContain('(pre-receive hook declined)');
    expect((await gitResultWithEnv(work, viaSsh(aliceKey), 'ls-remote', remote('alice/demo'), 'refs/heads/main')).stdout).toBe(`${before}\trefs/heads/main\n`);
  });

  it('when an unknown key, a deleted key or a suspended user\'s key connects, then authentication fails', async () => {
    const stranger = await keyFile('stranger', null);
    expect(await ssh(stranger, '-T', 'git@127.0.0.1')).toMatchObject({ code: 255, stderr: expect.stringContaining('Permission denied (publickey)') });
    const carol = await createUser(gh, 'carol');
    const carolKey = await keyFile('carol', userKey(carol));
    expect((await ssh(carolKey, '-T', 'git@127.0.0.1')).stderr).toContain('Hi carol!');
    expect((await api(gh, 'PATCH', '/api/admin/users/carol', { token: gh.adminToken, body: { suspended: true } })).status).toBe(200);
    expect(await ssh(carolKey, '-T', 'git@127.0.0.1')).toMatchObject({ code: 255, stderr: expect.stringContaining('Permission denied (publickey)') });
    const dave = await createUser(gh, 'dave');
    const daveKey = await keyFile('dave', userKey(dave));
    const [listed] = (await api<Array<{ id: number }>>(gh, 'GET', '/api/user/keys', { token: dave.token })).body;
    expect((await api(gh, 'DELETE', `/api/user/keys/${listed!.id}`, { token: dave.token })).status).toBe(204);
    expect(await ssh(daveKey, '-T', 'git@127.0.0.1')).toMatchObject({ code: 255, stderr: expect.stringContaining('Permission denied (publickey)') });
  });

  it('when a client asks for anything but the three commands, then one line and exit 1, or the request is refused', async () => {
    expect(await ssh(aliceKey, 'git@127.0.0.1', 'env')).toMatchObject({ code: 1, stderr: expect.stringContaining('githost serves only git-upload-pack, git-receive-pack and git-lfs-authenticate over SSH') });
    expect(await ssh(aliceKey, 'git@127.0.0.1', "git-upload-pack '--upload-pack=touch /tmp/x'")).toMatchObject({ code: 1, stderr: expect.stringContaining('Invalid repository path') });
    expect(await ssh(aliceKey, 'git@127.0.0.1', "git-upload-pack '/alice/../alice/demo.git'")).toMatchObject({ code: 1, stderr: expect.stringContaining('Invalid repository path') });
    expect((await ssh(aliceKey, '-s', 'git@127.0.0.1', 'sftp')).code).not.toBe(0);
    const forward = await ssh(aliceKey, '-o', 'ExitOnForwardFailure=yes', '-N', '-W', '127.0.0.1:22', 'git@127.0.0.1');
    expect([forward.code, forward.stderr]).toEqual([255, expect.stringContaining('open failed')]);
    const agent = await ssh(aliceKey, '-A', '-T', 'git@127.0.0.1');
    expect(agent.stderr).toContain('Hi alice!');
  });

  it('when `ssh -vv` connects, then the strict key exchange (Terrapin countermeasure) is negotiated with modern algorithms', async () => {
    const out = await ssh(aliceKey, '-vv', '-T', 'git@127.0.0.1');
    expect(out.stderr).toMatch(/peer server KEXINIT proposal\s*\n.*KEX algorithms: [^\n]*kex-strict-s-v00@openssh\.com/);
    expect(out.stderr).toMatch(/kex: algorithm: (curve25519-sha256|ecdh-sha2-nistp256)/);
    expect(out.stderr).not.toMatch(/ciphers ctos: [^\n]*cbc/);
  });

  it('when 20 clients clone at once over SSH, then every clone succeeds', async () => {
    const dir = makeWorkdir();
    const clones = await Promise.all(Array.from({ length: 20 }, (_, i) => gitResultWithEnv(dir, viaSsh(aliceKey), 'clone', '-q', remote('alice/demo'), `c${i}`)));
    expect(clones.map((c) => c.code)).toEqual(Array(20).fill(0));
  });
});
