import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sshKeyFingerprint } from '@githost/identity';
import { authorizedKeyLine, offeredKeyBlob, parseKeysArguments } from './authorized-key.js';
import { lookupKeyByFingerprint, type KeyLookup } from '../clients/accounts.js';
import { readSettings, required } from './settings.js';

/** The system user sshd logs git users in as when GITHOST_SSH_USER is not set. */
export const DEFAULT_SSH_USER = 'git';

export interface KeysOutcome {
  /** 0 with or without a line; 1 when accounts could not answer; 2 for bad arguments. */
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface KeysDeps {
  lookup(address: string, internalSecret: string, fingerprint: string): Promise<KeyLookup>;
  /** githost-serve's script, as an absolute path. */
  serveScript: string;
  node: string;
}

/** githost-serve's script beside this package's bin/ (resolved through symlinks such as node_modules/.bin). */
export function serveScriptPath(): string {
  return realpathSync(fileURLToPath(new URL('../../bin/githost-serve.js', import.meta.url)));
}

export const defaultKeysDeps = (): KeysDeps => ({ lookup: lookupKeyByFingerprint, serveScript: serveScriptPath(), node: process.execPath });

/**
 * What `githost-keys %u %k %t` answers sshd (services/ssh/README.md#openssh-mode): for the git
 * user and a key accounts says authenticates someone (a user's key or a deploy key), the one
 * authorized_keys line that forces githost-serve for that key; for any other user, an unknown
 * key, a suspended user's key or a key of another type, nothing and exit status 0 (sshd then
 * tries its other sources and refuses). Errors go to stderr, which sshd logs.
 */
export async function githostKeys(argv: readonly string[], deps: KeysDeps): Promise<KeysOutcome> {
  let args;
  try {
    args = parseKeysArguments(argv);
  } catch (err) {
    return { exitCode: 2, stdout: '', stderr: `githost-keys: ${(err as Error).message}\n` };
  }
  try {
    const settings = readSettings(args.settingsFile);
    if (args.user !== (settings.GITHOST_SSH_USER || DEFAULT_SSH_USER)) return { exitCode: 0, stdout: '', stderr: '' };
    const blob = offeredKeyBlob(args.keyType, args.keyBase64);
    if (!blob) return { exitCode: 0, stdout: '', stderr: '' };
    const found = await deps.lookup(required(settings, 'ACCOUNTS_GRPC_ADDR', args.settingsFile), required(settings, 'GITHOST_INTERNAL_SECRET', args.settingsFile), sshKeyFingerprint(blob));
    if (found.outcome !== 'user' && found.outcome !== 'deploy_key') return { exitCode: 0, stdout: '', stderr: '' };
    const line = authorizedKeyLine({ node: deps.node, script: deps.serveScript, settingsFile: args.settingsFile }, found.keyId, args.keyType, args.keyBase64);
    return { exitCode: 0, stdout: `${line}\n`, stderr: '' };
  } catch (err) {
    return { exitCode: 1, stdout: '', stderr: `githost-keys: ${(err as Error).message}\n` };
  }
}
