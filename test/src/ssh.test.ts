import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PushPayload } from '@githost/git-storage';
import { startGithost } from '@githost/launcher';
import { generateSshKey, parentPid } from '@githost/test-support';
import { api, webGet, commitFiles, createRepo, createUser, eventually, git, gitResultWithEnv, makeWorkdir, startReceiver, startTestGithost, type GitResult, type Receiver, type TestGithost, type TestUser } from './support/index.js';

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

  it('when alice pushes 300 new branches over SSH in one push that is not atomic, then every branch lands and each fires its push webhook once', async () => {
    await createRepo(gh, alice.token, 'branches');
    expect((await api(gh, 'POST', '/api/repos/alice/branches/webhooks', { token: alice.token, body: { url: `${receiver.url}/branches`, events: 'push' } })).status).toBe(201);
    const work = makeWorkdir();
    const tip = await commitFiles(work, { 'a.txt': 'a\n' }, 'a');
    const names = Array.from({ length: 300 }, (_, i) => `b${String(i).padStart(3, '0')}`);
    const pushed = await gitResultWithEnv(work, viaSsh(aliceKey), 'push', '-q', remote('alice/branches'), ...names.map((n) => `HEAD:refs/heads/${n}`));
    expect([pushed.code, pushed.stderr]).toEqual([0, expect.not.stringMatching(/error|rejected/)]);
    const listed = await gitResultWithEnv(work, viaSsh(aliceKey), 'ls-remote', '--heads', remote('alice/branches'));
    expect(listed.stdout.trim().split('\n').sort()).toEqual(names.map((n) => `${tip}\trefs/heads/${n}`));
    const delivered = await eventually(() => {
      const refs = receiver.received.filter((d) => d.path === '/branches').map((d) => d.body.ref);
      return refs.length >= names.length ? refs : undefined;
    }, 60_000);
    expect([...delivered].sort()).toEqual(names.map((n) => `refs/heads/${n}`));
  }, 120_000);

  it('when the repository page is shown, then its clone box offers the SSH URL beside HTTPS', async () => {
    const page = await webGet(gh, '/alice/demo');
    expect(page.status).toBe(200);
    expect(page.html).toContain(`value="ssh://git@localhost:${gh.sshPort}/alice/demo.git"`);
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
    const offered = (what: string) => new RegExp(`peer server KEXINIT proposal[\\s\\S]*?${what}: ([^\\n]*)`).exec(out.stderr)?.[1]?.trim().split(',');
    expect(offered('ciphers stoc')).toEqual(['chacha20-poly1305@openssh.com', 'aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes192-ctr', 'aes256-ctr']);
    expect(offered('MACs stoc')).toEqual(['hmac-sha2-256-etm@openssh.com', 'hmac-sha2-512-etm@openssh.com', 'hmac-sha2-256', 'hmac-sha2-512']);
    expect(offered('KEX algorithms')).not.toContain('diffie-hellman-group14-sha1');
    // ssh2 always appends ssh-rsa (SHA-1) after the RSA host key's SHA-2 forms (docs/decisions/ssh-server.md#algorithms).
    expect(offered('host key algorithms')).toEqual(['ssh-ed25519', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']);
  });

  it('when git lfs pushes and clones over an SSH remote, then git-lfs-authenticate opens HTTP for that repository and operation only', async () => {
    await createRepo(gh, alice.token, 'media', { private: true });
    const work = makeWorkdir();
    await git(work, 'lfs', 'install', '--skip-repo');
    await git(work, 'init', '-q', '-b', 'main');
    await git(work, 'lfs', 'track', '*.bin');
    const blob = randomBytes(3 * 1024 * 1024);
    await commitFiles(work, { 'asset.bin': blob }, 'asset');
    const pushed = await gitResultWithEnv(work, viaSsh(aliceKey), 'push', remote('alice/media'), 'main');
    expect([pushed.code, pushed.stderr]).toEqual([0, expect.stringContaining('main -> main')]);
    const dir = makeWorkdir();
    expect((await gitResultWithEnv(dir, viaSsh(aliceKey), 'clone', '-q', remote('alice/media'), 'copy')).code).toBe(0);
    expect(readFileSync(path.join(dir, 'copy', 'asset.bin')).equals(blob)).toBe(true);

    // The download credential: the LFS API of this repository, reading only.
    const answer = await ssh(aliceKey, 'git@127.0.0.1', 'git-lfs-authenticate alice/media.git download');
    const credential = JSON.parse(answer.stdout) as { href: string; header: Record<string, string>; expires_in: number };
    expect(credential).toEqual({ href: `http://localhost:${gh.port}/alice/media.git/info/lfs`, header: { Authorization: expect.stringMatching(/^RemoteAuth \S+$/) }, expires_in: 900 });
    const batch = (repo: string, operation: string) =>
      fetch(`http://127.0.0.1:${gh.port}/alice/${repo}.git/info/lfs/objects/batch`, {
        method: 'POST',
        headers: { ...credential.header, 'content-type': 'application/vnd.git-lfs+json', accept: 'application/vnd.git-lfs+json' },
        body: JSON.stringify({ operation, transfers: ['basic'], objects: [{ oid: 'a'.repeat(64), size: 1 }] }),
      });
    expect((await batch('media', 'download')).status).toBe(200);
    expect((await batch('media', 'upload')).status).toBe(403);
    expect((await batch('demo', 'download')).status).toBe(401);
    // A stranger and a read-only deploy key get no upload credential.
    expect(await ssh(bobKey, 'git@127.0.0.1', 'git-lfs-authenticate alice/media.git download')).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('Repository not found') });
    const readOnly = await keyFile('deploy-lfs', deployKey('media', true));
    expect(await ssh(readOnly, 'git@127.0.0.1', 'git-lfs-authenticate alice/media.git upload')).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('You do not have write access to this repository') });
  }, 120_000);

  it('when 20 clients clone at once over SSH, then every clone succeeds', async () => {
    const dir = makeWorkdir();
    const clones = await Promise.all(Array.from({ length: 20 }, (_, i) => gitResultWithEnv(dir, viaSsh(aliceKey), 'clone', '-q', remote('alice/demo'), `c${i}`)));
    expect(clones.map((c) => c.code)).toEqual(Array(20).fill(0));
  });
});

/** git transport processes (upload-pack, receive-pack and their pack-objects, index-pack) in or on a
 *  repository under `dataDir`, by cwd or argument; git-storage's long-lived cat-file readers are not. */
const TRANSPORT = /(upload-pack|receive-pack|pack-objects|index-pack|unpack-objects)/;
function gitProcessesUnder(dataDir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (TRANSPORT.test(cmdline) && (cwd.startsWith(dataDir) || cmdline.includes(dataDir))) found.push(`${pid} ${cmdline}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** pkt-lines of a v0 exchange: the length in 4 hex digits, the payload. */
const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;

/**
 * `ssh ... <command> '<repo>'` with the real client, protocol v0; resolves once git-storage's git has
 * answered with its whole ref advertisement (a flush), with the advertised tip.
 */
function sshGit(key: string, command: string, repo: string) {
  const child = spawn('ssh', [...sshOptions(key), 'git@127.0.0.1', `${command} '${repo}.git'`], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => {});
  const advertised = new Promise<string>((resolve, reject) => {
    let seen = '';
    const onData = (b: Buffer) => {
      seen += b.toString('latin1');
      if (!seen.endsWith('0000')) return;
      child.stdout.off('data', onData);
      // Stop reading: what git sends next fills the SSH window and the pipes, and git waits on them.
      child.stdout.pause();
      resolve(seen.slice(4, 44));
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`ssh exited ${code} before the advertisement`)));
  });
  return { child, advertised };
}

describe('a client that goes away', () => {
  it('when the ssh client is killed -9 mid-clone or mid-push, then git-storage stops its git and removes the push quarantine', async () => {
    await createRepo(gh, alice.token, 'big');
    const work = makeWorkdir();
    // Incompressible, so the pack is far larger than the SSH window and every pipe on its way.
    await commitFiles(work, { 'noise.bin': randomBytes(24 * 1024 * 1024) }, 'noise');
    expect((await gitResultWithEnv(work, viaSsh(aliceKey), 'push', '-q', remote('alice/big'), 'main')).code).toBe(0);
    expect(gitProcessesUnder(gh.dataDir)).toEqual([]);

    // A clone: the client asked for the pack and stopped reading it; git-storage's git is stuck writing.
    const clone = sshGit(aliceKey, 'git-upload-pack', 'alice/big');
    const tip = await clone.advertised;
    clone.child.stdin.write(`${pkt(`want ${tip}\n`)}0000${pkt('done\n')}`);
    await eventually(() => gitProcessesUnder(gh.dataDir).some((p) => p.includes('pack-objects')) || undefined);
    clone.child.kill('SIGKILL');
    await eventually(() => gitProcessesUnder(gh.dataDir).length === 0 || undefined);

    // A push: the command and half of the pack sent, then the client dies; receive-pack waits for the rest.
    await commitFiles(work, { 'more.bin': randomBytes(8 * 1024 * 1024) }, 'more');
    const head = await git(work, 'rev-parse', 'HEAD');
    const pack = await new Promise<Buffer>((resolve, reject) => {
      const out: Buffer[] = [];
      const p = spawn('git', ['pack-objects', '--stdout', '--revs', '-q'], { cwd: work });
      p.stdout.on('data', (b: Buffer) => out.push(b));
      p.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`pack-objects exited ${code}`))));
      p.stdin.end(`${head}\n^${tip}\n`);
    });
    const push = sshGit(aliceKey, 'git-receive-pack', 'alice/big');
    expect(await push.advertised).toBe(tip);
    push.child.stdin.write(`${pkt(`${tip} ${head} refs/heads/main\0 report-status\n`)}0000`);
    push.child.stdin.write(pack.subarray(0, pack.length >> 1));
    const quarantines = () => readdirSync(gh.dataDir, { recursive: true, encoding: 'utf8' }).filter((p) => p.includes('tmp_objdir-incoming'));
    await eventually(() => quarantines().length > 0 || undefined);
    // git-storage read the push's commands and recorded them before git started, as over smart
    // HTTP: receive-pack runs stateless and without the per-ref reference-transaction hook
    // (docs/decisions/many-refs-push.md#over-ssh).
    // (A receive-pack forking its unpack-objects shows twice until the child execs: the parent is the one.)
    const receivePacks = new Map(gitProcessesUnder(gh.dataDir).filter((p) => p.includes(' receive-pack ')).map((p) => [Number(p.split(' ')[0]), p]));
    expect([...receivePacks].filter(([pid]) => !receivePacks.has(parentPid(pid))).map(([, p]) => p)).toEqual([expect.stringMatching(/ -c core\.hooksPath=\S*\/hooks\/commands-recorded .* receive-pack --stateless-rpc --end-of-options /)]);
    push.child.kill('SIGKILL');
    await eventually(() => gitProcessesUnder(gh.dataDir).length === 0 || undefined);
    await eventually(() => quarantines().length === 0 || undefined);
    // Nothing moved, and the repository still serves.
    expect((await gitResultWithEnv(work, viaSsh(aliceKey), 'ls-remote', remote('alice/big'), 'refs/heads/main')).stdout).toBe(`${tip}\trefs/heads/main\n`);
  }, 120_000);
});

describe('host keys', () => {
  it('when githost restarts on the same DATA_DIR, then ssh finds the same host key (StrictHostKeyChecking=yes passes)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'githost-e2e-ssh-restart-'));
    const adminToken = `e2e-admin-${randomBytes(16).toString('hex')}`;
    const start = () => startGithost({ port: 0, metricsPort: 0, sshPort: 0, dataDir, adminToken, env: { DATABASE_URL: '', AMQP_URL: '', GITHOST_SHARDS: '' } });
    const hosts = path.join(keyDir, 'known_hosts_restart');
    const made = await generateSshKey('ed25519');
    const key = path.join(keyDir, 'restart');
    writeFileSync(key, made.privateKey, { mode: 0o600 });
    const greet = (port: number, checking: string) =>
      new Promise<GitResult>((resolve) => {
        execFile('ssh', ['-i', key, '-p', String(port), '-o', 'IdentitiesOnly=yes', '-o', `UserKnownHostsFile=${hosts}`, '-o', `StrictHostKeyChecking=${checking}`, '-o', 'BatchMode=yes', '-F', '/dev/null', '-T', 'git@127.0.0.1'], { timeout: 60_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
        );
      });
    let running = await start();
    try {
      const local = { url: `http://127.0.0.1:${running.port}` };
      const user = await api<{ username: string }>(local, 'POST', '/api/admin/users', { token: adminToken, body: { username: 'rita', email: 'rita@example.com' } });
      expect(user.status).toBe(201);
      const token = (await api<{ token: string }>(local, 'POST', '/api/admin/users/rita/tokens', { token: adminToken })).body.token;
      expect((await api(local, 'POST', '/api/user/keys', { token, body: { key: made.publicKey } })).status).toBe(201);
      expect((await greet(running.sshPort, 'accept-new')).stderr).toContain('Hi rita!');
      await running.stop();
      running = await start();
      // known_hosts names [127.0.0.1]:<port>; the port changed, so the entry is copied to the new one.
      const line = readFileSync(hosts, 'utf8').trim().replace(/^\[127\.0\.0\.1\]:\d+/, `[127.0.0.1]:${running.sshPort}`);
      writeFileSync(hosts, `${line}\n`);
      expect(await greet(running.sshPort, 'yes')).toMatchObject({ code: 1, stderr: expect.stringContaining('Hi rita!') });
    } finally {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
