import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@githost/test-support';
import { accepts } from './listener.js';

export const SSHD = '/usr/sbin/sshd';

/** An OpenSSH `sshd` of the bench's own, on a loopback port, letting one key in as the bench's user. */
export interface PlainSshd {
  port: number;
  pid: number;
  user: string;
  stop(): Promise<void>;
}

/** Why the OpenSSH rows cannot run, if they cannot (Debian's openssh-server is not installed). */
export function sshdMissing(): string | undefined {
  return existsSync(SSHD) ? undefined : `${SSHD} missing (install Debian's openssh-server to get the OpenSSH rows)`;
}

/**
 * Starts `sshd -D -e -f <generated config> -p <port>` with a host key and an authorized-keys file
 * of its own under `dir`. It runs commands through the user's shell exactly as a stock sshd does:
 * `git-upload-pack '<path>'` on a bare repository. `AcceptEnv GIT_PROTOCOL` lets git's protocol v2
 * through, as githost's SSH service honours it (the "Protocol v2"), so both sides speak v2.
 */
export async function startPlainSshd(dir: string, clientPublicKey: string): Promise<PlainSshd> {
  mkdirSync(dir, { recursive: true });
  const hostKey = join(dir, 'ssh_host_ed25519_key');
  if (!existsSync(hostKey)) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'bench-sshd', '-f', hostKey]);
  const authorizedKeys = join(dir, 'authorized_keys');
  writeFileSync(authorizedKeys, `${clientPublicKey}\n`, { mode: 0o600 });
  const root = process.getuid?.() === 0;
  // As root, sshd's privilege separation needs its empty directory (Debian's unit makes it at boot).
  if (root) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorizedKeys}`,
      'ListenAddress 127.0.0.1',
      'PidFile none',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      root ? 'PermitRootLogin prohibit-password' : '',
      // the key and its directory sit in the bench's scratch space, not in a home with sshd's modes
      'StrictModes no',
      'AcceptEnv GIT_PROTOCOL',
      'X11Forwarding no',
      'AllowTcpForwarding no',
      'PrintMotd no',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const child = spawn(SSHD, ['-D', '-e', '-f', config, '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  let exitCode: number | undefined;
  void exited.then((c) => (exitCode = c));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port, 500))) {
    if (exitCode !== undefined) throw new Error(`sshd exited with ${exitCode}: ${stderr.trim()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`sshd did not listen on ${port} within 10 s: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    pid: child.pid!,
    user: userInfo().username,
    stop: async () => {
      if (exitCode !== undefined) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
