import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Connection } from 'ssh2';
import { createLogger } from '@githost/logging';
import type { RepoFields } from '@githost/identity';
import { sshKeyFingerprint } from '@githost/identity';
import { loadHostKeys } from './host-keys.js';
import { corkedOn, createSshServer } from './ssh-server.js';
import type { CommandDeps, SshCaller } from './commands/index.js';

const demo: RepoFields = { id: 'r1', owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', owner_id: 'u-alice' };
const alice: SshCaller = { keyId: '1', kind: 'user', user: { id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false } };
const IDLE_MS = 200;

let dir: string;
let server: ReturnType<typeof createSshServer> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A server whose one known key is alice's, with `runGit` standing in for git-storage. */
async function start(runGit: CommandDeps['runGit']): Promise<{ port: number; identity: string }> {
  dir = mkdtempSync(path.join(tmpdir(), 'githost-ssh-idle-'));
  const identity = path.join(dir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', identity]);
  const aliceFingerprint = sshKeyFingerprint(Buffer.from(readFileSync(`${identity}.pub`, 'utf8').split(' ')[1]!, 'base64'));
  const logger = createLogger('ssh-test', 'silent');
  server = createSshServer({
    hostKeys: await loadHostKeys(path.join(dir, 'host')),
    limits: { unauthenticatedPerAddress: 30, sessionsPerKey: 20, loginGraceMs: 30_000, authAttempts: 6, idleMs: IDLE_MS },
    callerByFingerprint: async (fingerprint) => (fingerprint === aliceFingerprint ? alice : null),
    commands: {
      authorize: async () => ({ ...demo, permission: 'admin' }),
      withinGitBudget: async () => true,
      runGit,
      lfsAuthentication: () => ({ href: 'http://githost.test/alice/demo.git/info/lfs', header: {}, expires_in: 900 }),
      newRequestId: () => 'req-1',
      logger,
    },
    logger,
  });
  return { port: await server.listen(0, '127.0.0.1'), identity };
}

/** OpenSSH's client, as a developer's git runs it. */
function ssh(port: number, identity: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  const options = ['-F', '/dev/null', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'IdentitiesOnly=yes', '-o', 'LogLevel=ERROR'];
  const child = spawn('ssh', [...options, '-i', identity, '-p', String(port), 'git@127.0.0.1', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.resume();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

describe('createSshServer idle cut-off (docs/decisions/ssh-server.md#limits)', () => {
  it('when an authenticated connection runs no command, then the server closes it after SSH_IDLE_TIMEOUT_MS', async () => {
    const { port, identity } = await start(async () => 0);
    // -N: authenticate, open no session, wait; only the server's cut ends it.
    const { code } = await ssh(port, identity, ['-N']);
    expect(code).toBe(255);
  });

  it('when a command runs longer than SSH_IDLE_TIMEOUT_MS, then it is not cut and finishes with its output and status', async () => {
    const { port, identity } = await start(async (_run, io) => {
      await new Promise((r) => setTimeout(r, IDLE_MS * 4));
      io.stdout.write('git output');
      return 0;
    });
    expect(await ssh(port, identity, ["git-upload-pack 'alice/demo.git'"])).toEqual({ code: 0, stdout: 'git output' });
  });
});

describe('corkedOn (docs/decisions/ssh-server.md#the-clone-path)', () => {
  it('when a connection has its socket, then a write runs with it corked and it is uncorked after, even when the write throws', () => {
    const socket = new Socket();
    const corked = corkedOn({ _sock: socket } as unknown as Connection)!;
    const seen: number[] = [];
    expect(corked(() => (seen.push(socket.writableCorked), false))).toBe(false);
    expect(() => corked(() => {
      seen.push(socket.writableCorked);
      throw new Error('boom');
    })).toThrow('boom');
    expect([...seen, socket.writableCorked]).toEqual([1, 1, 0]);
    socket.destroy();
  });

  it('when a connection has no socket ssh2 keeps, then there is nothing to cork', () => {
    expect(corkedOn({} as unknown as Connection)).toBeUndefined();
  });
});
