import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { DeployKey, SshKey } from '@githost/api-types';
import { freePort, generateSshKey } from '@githost/test-support';
import { api, commitFiles, createRepo, createUser, git, gitResultWithEnv, makeWorkdir, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * OpenSSH mode end to end (services/ssh/README.md#openssh-mode): Debian's real sshd on a loopback
 * port, its AuthorizedKeysCommand githost-keys (built, as `npm start` runs it) reading the
 * settings `npm start` wrote, its forced command githost-serve, and the real git and ssh
 * clients. The tests run as root, so root is the git user here (GITHOST_SSH_USER).
 */
const SSHD = '/usr/sbin/sshd';
const SSH_PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../services/ssh');
const KEYS_SCRIPT = path.join(SSH_PACKAGE, 'bin/githost-keys.js');

// Every connection runs two node programs (githost-keys, githost-serve) on a machine that may be busy.
jest.setTimeout(180_000);

let gh: TestGithost;
let dir: string;
let sshd: ChildProcess;
let sshdLog = '';
let port: number;
let alice: TestUser;
let keyFiles: { alice: string; readOnly: string; writable: string; stranger: string };

function writeKey(name: string, privateKey: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, privateKey, { mode: 0o600 });
  return file;
}

function sshCommand(keyFile: string): string {
  return `ssh -F /dev/null -i ${keyFile} -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile=${path.join(dir, 'known_hosts')} -o StrictHostKeyChecking=yes -p ${port}`;
}

const sshUrl = (owner: string, repo: string) => `ssh://root@127.0.0.1:${port}/${owner}/${repo}.git`;

function gitWithKey(cwd: string, keyFile: string, ...args: string[]) {
  return gitResultWithEnv(cwd, { GIT_SSH_COMMAND: sshCommand(keyFile) }, ...args);
}

/** The real ssh client with `args` after the host; never throws for a non-zero exit. */
function ssh(keyFile: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = [...sshCommand(keyFile).split(' ').slice(1), '-T', 'root@127.0.0.1', ...args];
  return new Promise((resolve, reject) => {
    execFile('ssh', argv, { env: { PATH: process.env.PATH, HOME: dir }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}

async function listening(atPort: number): Promise<void> {
  for (;;) {
    if (sshd.exitCode !== null) throw new Error(`sshd exited ${sshd.exitCode}: ${sshdLog}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(atPort, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  gh = await startTestGithost();
  dir = mkdtempSync(path.join(tmpdir(), 'githost-openssh-'));
  // The settings npm start wrote, plus the git user of this machine.
  const settings = path.join(dir, 'openssh.env');
  copyFileSync(path.join(gh.dataDir, 'openssh.env'), settings);
  appendFileSync(settings, 'GITHOST_SSH_USER=root\n');
  // Privilege separation needs /run/sshd (Debian's package makes it at boot).
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = path.join(dir, 'host_ed25519');
  const made = await generateSshKey('ed25519');
  writeFileSync(hostKey, made.privateKey, { mode: 0o600 });
  port = await freePort();
  writeFileSync(path.join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${made.publicKey}\n`);
  writeFileSync(
    path.join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      'StrictModes no',
      'UsePAM no',
      'LogLevel VERBOSE',
      'AuthorizedKeysFile none',
      `AuthorizedKeysCommand ${process.execPath} ${KEYS_SCRIPT} --config=${settings} %u %k %t`,
      'AuthorizedKeysCommandUser root',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'AcceptEnv GIT_PROTOCOL',
      'DisableForwarding yes',
      'PermitTTY no',
      '',
    ].join('\n'),
  );
  sshd = spawn(SSHD, ['-D', '-e', '-f', path.join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  sshd.stderr!.on('data', (b: Buffer) => {
    sshdLog += b.toString();
  });
  await listening(port);

  alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'demo', { private: true });
  const keys = { alice: await generateSshKey('ed25519'), readOnly: await generateSshKey('ecdsa', { bits: 256 }), writable: await generateSshKey('rsa', { bits: 2048 }), stranger: await generateSshKey('ed25519') };
  expect((await api<SshKey>(gh, 'POST', '/api/user/keys', { token: alice.token, body: { title: 'laptop', key: keys.alice.publicKey } })).status).toBe(201);
  expect((await api<DeployKey>(gh, 'POST', '/api/repos/alice/demo/keys', { token: alice.token, body: { title: 'ci', key: keys.readOnly.publicKey } })).status).toBe(201);
  expect((await api<DeployKey>(gh, 'POST', '/api/repos/alice/demo/keys', { token: alice.token, body: { title: 'deploy', key: keys.writable.publicKey, read_only: false } })).status).toBe(201);
  keyFiles = { alice: writeKey('alice', keys.alice.privateKey), readOnly: writeKey('read-only', keys.readOnly.privateKey), writable: writeKey('writable', keys.writable.privateKey), stranger: writeKey('stranger', keys.stranger.privateKey) };
}, 180_000);

afterAll(async () => {
  if (sshd && sshd.exitCode === null) {
    const exited = new Promise((r) => sshd.once('exit', r));
    sshd.kill('SIGTERM');
    await exited;
  }
  await gh?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('OpenSSH mode', () => {
  it('when npm start ran, then the settings file is there, 0600, with accounts\' address and the internal secret', () => {
    const file = path.join(gh.dataDir, 'openssh.env');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`ACCOUNTS_GRPC_ADDR=${gh.grpcAddresses.accounts}\n`);
    expect(text).toMatch(/^GITHOST_INTERNAL_SECRET=[0-9a-f]{64}$/m);
  });

  it('when alice pushes and clones with her key through sshd, then git works over protocol v2 and the clone has her commit', async () => {
    const work = makeWorkdir();
    const sha = await commitFiles(work, { 'README.md': '# demo\n' }, 'first');
    const pushed = await gitWithKey(work, keyFiles.alice, 'push', sshUrl('alice', 'demo'), 'main');
    expect(pushed).toMatchObject({ code: 0 });
    const clone = makeWorkdir();
    const cloned = await gitResultWithEnv(clone, { GIT_SSH_COMMAND: sshCommand(keyFiles.alice), GIT_TRACE_PACKET: '1' }, '-c', 'protocol.version=2', 'clone', sshUrl('alice', 'demo'), 'copy');
    expect(cloned.code).toBe(0);
    // sshd passed GIT_PROTOCOL on (AcceptEnv): git-upload-pack answered in protocol v2.
    expect(cloned.stderr).toContain('version 2');
    expect(await git(path.join(clone, 'copy'), 'rev-parse', 'HEAD')).toBe(sha);
  });

  it('when a read-only deploy key clones and pushes, then the clone works and the push is refused with githost\'s message', async () => {
    const clone = makeWorkdir();
    const cloned = await gitWithKey(clone, keyFiles.readOnly, 'clone', sshUrl('alice', 'demo'), 'ro');
    expect(cloned.code).toBe(0);
    const work = path.join(clone, 'ro');
    await commitFiles(work, { 'ci.txt': 'from ci\n' }, 'ci');
    const pushed = await gitWithKey(work, keyFiles.readOnly, 'push', 'origin', 'main');
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain('You do not have write access to this repository');
  });

  it('when a writable deploy key pushes, then the branch moves', async () => {
    const clone = makeWorkdir();
    expect((await gitWithKey(clone, keyFiles.writable, 'clone', sshUrl('alice', 'demo'), 'rw')).code).toBe(0);
    const work = path.join(clone, 'rw');
    const sha = await commitFiles(work, { 'deploy.txt': 'deployed\n' }, 'deploy');
    expect(await gitWithKey(work, keyFiles.writable, 'push', 'origin', 'main')).toMatchObject({ code: 0 });
    const branches = await api<{ branches: { name: string; sha: string }[] }>(gh, 'GET', '/api/repos/alice/demo/branches', { token: alice.token });
    expect(branches.body.branches).toContainEqual(expect.objectContaining({ name: 'main', sha }));
  });

  it('when alice asks for a shell, then she is greeted by name and refused with status 1; a deploy key is greeted with its repository', async () => {
    expect(await ssh(keyFiles.alice)).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining("Hi alice! You've authenticated, but githost does not provide shell access.") });
    expect(await ssh(keyFiles.readOnly)).toMatchObject({ code: 1, stderr: expect.stringContaining('Hi alice/demo! You\'ve authenticated with a deploy key') });
    expect(await ssh(keyFiles.alice, 'cat', '/etc/passwd')).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('githost serves only git-upload-pack, git-receive-pack and git-lfs-authenticate') });
  });

  it('when git-lfs asks for a credential over sshd, then githost-serve answers git-lfs-authenticate\'s JSON for the gateway', async () => {
    const r = await ssh(keyFiles.alice, 'git-lfs-authenticate', 'alice/demo.git', 'download');
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.stdout) as { href: string; header: Record<string, string>; expires_in: number };
    expect(answer).toEqual({ href: expect.stringMatching(/\/alice\/demo\.git\/info\/lfs$/), header: { Authorization: expect.any(String) }, expires_in: expect.any(Number) });
    expect(await ssh(keyFiles.readOnly, 'git-lfs-authenticate', 'alice/demo.git', 'upload')).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('You do not have write access to this repository') });
  });

  it('when alice deletes a key, then sshd refuses it on the next connection', async () => {
    const made = await generateSshKey('ed25519');
    const added = await api<SshKey>(gh, 'POST', '/api/user/keys', { token: alice.token, body: { title: 'old laptop', key: made.publicKey } });
    const file = writeKey('deleted', made.privateKey);
    expect(await ssh(file)).toMatchObject({ code: 1, stderr: expect.stringContaining('Hi alice!') });
    expect((await api(gh, 'DELETE', `/api/user/keys/${added.body.id}`, { token: alice.token })).status).toBe(204);
    expect(await ssh(file)).toMatchObject({ code: 255, stderr: expect.stringContaining('Permission denied (publickey)') });
  });

  it('when a key githost does not know is offered, then sshd refuses it', async () => {
    const r = await ssh(keyFiles.stranger);
    expect(r.code).toBe(255);
    expect(r.stderr).toContain('Permission denied (publickey)');
    const clone = makeWorkdir();
    expect((await gitWithKey(clone, keyFiles.stranger, 'clone', sshUrl('alice', 'demo'), 'x')).code).not.toBe(0);
  });
});
