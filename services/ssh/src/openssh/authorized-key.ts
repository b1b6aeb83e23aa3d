import { isShellSafePath } from './settings.js';

/**
 * githost-keys' arguments and answer (services/ssh/README.md#openssh-mode): sshd's
 * `AuthorizedKeysCommand … %u %k %t` hands it the user being logged in as, the offered key in
 * base64 and its type (sshd_config(5), TOKENS); it answers one authorized_keys line forcing
 * `githost-serve key-<id>`, or nothing. No heavy imports: it runs on every connection.
 */

/** Where the settings are when no `--config=` is given (sshd passes no environment). */
export const DEFAULT_SETTINGS_FILE = '/etc/githost/openssh.env';

/** Key types githost accepts (accounts' ssh-public-key.ts); certificates are not keys of anyone. */
const KEY_TYPES = new Set(['ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521']);

/** Longest base64 key read: a 16384-bit RSA key is about 2.8 KB. */
const MAX_KEY_BASE64 = 8192;

export interface KeysArguments {
  settingsFile: string;
  user: string;
  keyType: string;
  keyBase64: string;
}

/** Splits `[--config=FILE] %u %k %t`; an Error with the usage for anything else. */
export function parseKeysArguments(argv: readonly string[]): KeysArguments {
  const args = [...argv];
  let settingsFile = DEFAULT_SETTINGS_FILE;
  if (args[0]?.startsWith('--config=')) settingsFile = args.shift()!.slice('--config='.length);
  if (args.length !== 3 || args.some((a) => a.startsWith('-'))) throw new Error('usage: githost-keys [--config=FILE] %u %k %t (sshd_config AuthorizedKeysCommand tokens: user, base64 key, key type)');
  if (!isShellSafePath(settingsFile)) throw new Error(`--config must be an absolute path of letters, digits and ._/+@- (it is written into the command= of the answer): ${JSON.stringify(settingsFile)}`);
  const [user, keyBase64, keyType] = args as [string, string, string];
  return { settingsFile, user, keyType, keyBase64 };
}

/** The SSH wire string at `offset` of `blob` (RFC 4251 §5), or null past the end. */
function sshString(blob: Buffer, offset: number): Buffer | null {
  if (offset + 4 > blob.length) return null;
  const length = blob.readUInt32BE(offset);
  if (offset + 4 + length > blob.length) return null;
  return blob.subarray(offset + 4, offset + 4 + length);
}

/**
 * The key blob sshd offered, when it is a plain public key of a type githost accepts whose
 * blob names the same type as `%t`; null otherwise (nothing to look up).
 */
export function offeredKeyBlob(keyType: string, keyBase64: string): Buffer | null {
  if (!KEY_TYPES.has(keyType)) return null;
  if (keyBase64.length > MAX_KEY_BASE64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(keyBase64)) return null;
  const blob = Buffer.from(keyBase64, 'base64');
  if (blob.toString('base64') !== keyBase64) return null;
  const name = sshString(blob, 0);
  return name && name.toString('latin1') === keyType ? blob : null;
}

export interface ServeCommand {
  /** The node executable (process.execPath): sshd's session PATH may not hold it. */
  node: string;
  /** githost-serve's script. */
  script: string;
  settingsFile: string;
}

/**
 * The authorized_keys line for a key accounts knows: the key may only run githost-serve for its
 * own id (`command=`), with no pty, forwarding, agent or X11 (`restrict`, OpenSSH 7.2+).
 */
export function authorizedKeyLine(serve: ServeCommand, keyId: number, keyType: string, keyBase64: string): string {
  for (const path of [serve.node, serve.script, serve.settingsFile]) {
    if (!isShellSafePath(path)) throw new Error(`cannot write ${JSON.stringify(path)} into command=: only letters, digits and ._/+@- are safe there`);
  }
  if (!Number.isSafeInteger(keyId) || keyId <= 0) throw new Error(`not a key id: ${keyId}`);
  return `command="${serve.node} ${serve.script} --config=${serve.settingsFile} key-${keyId}",restrict ${keyType} ${keyBase64}`;
}
