import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ssh2 from 'ssh2';

const { utils } = ssh2;

/** One host key: its private key as ssh2 reads it, and what users check it by. */
export interface HostKey {
  type: 'ssh-ed25519' | 'ssh-rsa';
  privateKey: string;
  /** `ssh-ed25519 AAAA...` as a known_hosts line carries it. */
  publicKey: string;
  /** SHA256:<base64 without padding>, as `ssh-keygen -lf` and `ssh` print it. */
  fingerprint: string;
}

const KINDS = [
  { file: 'ssh_host_ed25519_key', type: 'ssh-ed25519', make: () => utils.generateKeyPairSync('ed25519') },
  // For clients without ed25519 (old ones); 3072 bits as ssh-keygen makes by default.
  { file: 'ssh_host_rsa_key', type: 'ssh-rsa', make: () => utils.generateKeyPairSync('rsa', { bits: 3072 }) },
] as const;

/** SHA256 fingerprint of a public key blob. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * The server's host keys under `DATA_DIR/ssh/` (docs/decisions/ssh-server.md#host-keys): made on
 * the first start (directory 0700, files 0600, written whole before they are used) and read on
 * every start after, so clients' known_hosts stay valid across restarts and upgrades.
 */
export async function loadHostKeys(dataDir: string): Promise<HostKey[]> {
  const dir = path.join(dataDir, 'ssh');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const keys: HostKey[] = [];
  for (const kind of KINDS) {
    const file = path.join(dir, kind.file);
    let privateKey: string;
    try {
      privateKey = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      privateKey = kind.make().private;
      // `wx`: two processes starting on one DATA_DIR never overwrite each other's key.
      await writeFile(file, privateKey, { mode: 0o600, flag: 'wx' }).catch(async (e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
        privateKey = await readFile(file, 'utf8');
      });
    }
    await chmod(file, 0o600);
    const parsed = utils.parseKey(privateKey);
    if (parsed instanceof Error) throw new Error(`${file}: not a private key ssh2 can read (${parsed.message}); move it away to make a new one`);
    const key = Array.isArray(parsed) ? parsed[0]! : parsed;
    const blob = key.getPublicSSH();
    keys.push({ type: kind.type, privateKey, publicKey: `${kind.type} ${blob.toString('base64')}`, fingerprint: fingerprintOf(blob) });
  }
  return keys;
}
