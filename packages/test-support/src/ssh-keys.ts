import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface GeneratedSshKey {
  /** The `.pub` line: `<type> <base64> <comment>`. */
  publicKey: string;
  /** The private key file's text (OpenSSH format). */
  privateKey: string;
  /** What `ssh-keygen -lf` prints for the public key: `SHA256:…`. */
  fingerprint: string;
}

/** A fresh key pair made by the real `ssh-keygen` (OpenSSH), with its fingerprint as OpenSSH prints it. */
export async function generateSshKey(type: 'ed25519' | 'ecdsa' | 'rsa' | 'dsa', options: { bits?: number; comment?: string } = {}): Promise<GeneratedSshKey> {
  const dir = await mkdtemp(path.join(tmpdir(), 'githost-ssh-key-'));
  try {
    const file = path.join(dir, 'key');
    const bits = options.bits === undefined ? [] : ['-b', String(options.bits)];
    await run('ssh-keygen', ['-q', '-t', type, ...bits, '-N', '', '-C', options.comment ?? 'test@githost', '-f', file]);
    const { stdout } = await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${file}.pub`]);
    const fingerprint = stdout.split(' ')[1] ?? '';
    return { publicKey: (await readFile(`${file}.pub`, 'utf8')).trim(), privateKey: await readFile(file, 'utf8'), fingerprint };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
