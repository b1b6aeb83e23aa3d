import { access, chmod, constants, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '@githost/config/errors';
import { sshKeyFingerprint } from '@githost/identity';
import ssh2 from './ssh2-module.js';

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

/**
 * A new private key that ssh2 reads back: about 4 in 1,000 ed25519 keys ssh2 generates come out in
 * a form its own parser refuses ("Malformed OpenSSH private key"), which stopped a first start; such
 * a key is made again.
 */
export function readableKey(make: () => { private: string }, tries = 20): string {
  for (let i = 0; i < tries; i++) {
    const key = make().private;
    if (!(utils.parseKey(key) instanceof Error)) return key;
  }
  throw new Error(`no readable host key in ${tries} tries`);
}

const KINDS = [
  { file: 'ssh_host_ed25519_key', type: 'ssh-ed25519', make: () => readableKey(() => utils.generateKeyPairSync('ed25519')) },
  // For clients without ed25519 (old ones); 3072 bits as ssh-keygen makes by default.
  { file: 'ssh_host_rsa_key', type: 'ssh-rsa', make: () => readableKey(() => utils.generateKeyPairSync('rsa', { bits: 3072 })) },
] as const;

/** Errors that say the directory cannot be written (a Secret volume, a read-only mount). */
const READ_ONLY = new Set(['EROFS', 'EACCES', 'EPERM']);
const isReadOnly = (err: unknown) => READ_ONLY.has((err as NodeJS.ErrnoException).code ?? '');

/** The host key directory cannot hold the keys it lacks: a ConfigError, so the start stops with this one line. */
export class MissingHostKeyError extends ConfigError {}

async function writable(dir: string): Promise<boolean> {
  return access(dir, constants.W_OK).then(
    () => true,
    () => false,
  );
}

/**
 * The server's host keys in `dir` (`SSH_HOST_KEY_DIR`, default `DATA_DIR/ssh`;
 * docs/decisions/ssh-server.md#host-keys): made on the first start when `dir` is writable
 * (directory 0700, files 0600, written whole before they are used) and read on every start after,
 * so clients' known_hosts stay valid across restarts and upgrades. A read-only `dir` (a Secret
 * shared by every replica on Kubernetes) must hold both keys: a key made there would differ per
 * replica, so a missing one stops the start instead.
 */
export async function loadHostKeys(dir: string, isWritable: (dir: string) => Promise<boolean> = writable): Promise<HostKey[]> {
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((err: unknown) => {
    if (!isReadOnly(err)) throw err;
  });
  // `isWritable`: the tests' stand-in for a read-only mount (root, who runs them, writes anywhere).
  const canWrite = await isWritable(dir);
  // A directory someone else owns (a Kubernetes emptyDir) keeps its mode; the files are ours.
  if (canWrite) await chmod(dir, 0o700).catch((err: unknown) => {
    if (!isReadOnly(err)) throw err;
  });
  const keys: HostKey[] = [];
  for (const kind of KINDS) {
    const file = path.join(dir, kind.file);
    let privateKey: string;
    try {
      privateKey = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      const missing = () => new MissingHostKeyError(`${file} is missing and ${dir} is read-only: create the host keys there (deploy/README.md#ssh-host-keys); githost never makes a key per replica`);
      if (!canWrite) throw missing();
      privateKey = kind.make();
      // `wx`: two processes starting on one DATA_DIR never overwrite each other's key.
      await writeFile(file, privateKey, { mode: 0o600, flag: 'wx' }).catch(async (e: NodeJS.ErrnoException) => {
        if (isReadOnly(e)) throw missing();
        if (e.code !== 'EEXIST') throw e;
        privateKey = await readFile(file, 'utf8');
      });
    }
    if (canWrite) await chmod(file, 0o600);
    const parsed = utils.parseKey(privateKey);
    if (parsed instanceof Error) throw new Error(`${file}: not a private key ssh2 can read (${parsed.message}); move it away to make a new one`);
    const key = Array.isArray(parsed) ? parsed[0]! : parsed;
    if (key.type !== kind.type) throw new Error(`${file}: a ${key.type} key where ${kind.type} belongs`);
    const blob = key.getPublicSSH();
    keys.push({ type: kind.type, privateKey, publicKey: `${kind.type} ${blob.toString('base64')}`, fingerprint: sshKeyFingerprint(blob) });
  }
  return keys;
}
