import { AppError } from '@githost/errors';
import { repoFieldsOf, type Permission, type Principal, type RepoContext } from '@githost/identity';
import { sshCallerOf, type SshCaller } from '../commands/caller.js';
import { AUTHORIZE_PATH, decodeAuthorizeResponse, decodeLookupSshKeyResponse, encodeAuthorizeRequest, encodeLookupSshKeyRequest, LOOKUP_SSH_KEY_PATH } from './accounts-messages.js';
import { GrpcConnection } from './grpc-unary.js';

const TIMEOUT_MS = 5_000;
const PERMISSIONS: readonly Permission[] = ['none', 'read', 'write', 'admin'];

/** What the SSH server asks accounts: who a key is (fresh on every connection), and a user's
 *  permission on a repository (accounts' Authorize, as the gateway asks it). */
export interface SshAccounts {
  /** The caller the key authenticates; null for an unknown key or a suspended user. */
  callerByFingerprint(fingerprint: string, requestId: string): Promise<SshCaller | null>;
  /** The same by the key's id: OpenSSH mode's `githost-serve key-<id>` (services/ssh/README.md#openssh-mode). */
  callerByKeyId(keyId: number, requestId: string): Promise<SshCaller | null>;
  authorize(principal: Principal, owner: string, name: string, requestId: string): Promise<RepoContext | null>;
  reachable(): Promise<boolean>;
  close(): void;
}

/** accounts at `address` (host:port), over gRPC on node's http2 (clients/grpc-unary.ts). */
export function sshAccounts(address: string, internalSecret: string): SshAccounts {
  const connection = new GrpcConnection(address, internalSecret);
  const lookup = async (req: { fingerprint?: string; key_id?: number }, requestId: string) =>
    sshCallerOf(decodeLookupSshKeyResponse(await connection.unary(LOOKUP_SSH_KEY_PATH, encodeLookupSshKeyRequest(req), { requestId, timeoutMs: TIMEOUT_MS })));
  return {
    callerByFingerprint: (fingerprint, requestId) => lookup({ fingerprint }, requestId),
    callerByKeyId: (keyId, requestId) => lookup({ key_id: keyId }, requestId),
    async authorize(principal, owner, name, requestId) {
      // A key acts without site-admin powers (commands/caller.ts principalOf).
      const req = { user_id: principal.user_id ?? '', bootstrap_admin: false, without_site_admin: true, owner, name };
      try {
        const res = decodeAuthorizeResponse(await connection.unary(AUTHORIZE_PATH, encodeAuthorizeRequest(req), { requestId, timeoutMs: TIMEOUT_MS }));
        const r = res.repository;
        if (!r) return null;
        const permission = PERMISSIONS.includes(res.permission as Permission) ? (res.permission as Permission) : 'none';
        return { ...repoFieldsOf({ ...r, shard: r.shard || 'default' }), permission };
      } catch (err) {
        // A name accounts rejects as malformed cannot exist either; a user suspended since the
        // key was looked up has no access at all.
        if (err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation' || err.kind === 'unauthenticated')) return null;
        throw err;
      }
    },
    reachable: () => connection.reachable(1_000),
    close: () => connection.close(),
  };
}

/** What githost-keys needs of a key: whether it authenticates anyone, and its id. */
export interface KeyLookup {
  /** not_found, refused, user or deploy_key. */
  outcome: string;
  keyId: number;
}

/**
 * accounts' LookupSshKey by fingerprint on a connection of its own, as githost-keys asks it once
 * per SSH connection sshd accepts (docs/decisions/openssh-mode.md); rejects on any failure
 * (unreachable, a gRPC status other than OK, `timeoutMs` passed).
 */
export async function lookupKeyByFingerprint(address: string, internalSecret: string, fingerprint: string, timeoutMs = TIMEOUT_MS): Promise<KeyLookup> {
  const connection = new GrpcConnection(address, internalSecret);
  try {
    const res = decodeLookupSshKeyResponse(await connection.unary(LOOKUP_SSH_KEY_PATH, encodeLookupSshKeyRequest({ fingerprint }), { timeoutMs }));
    return { outcome: res.outcome, keyId: res.key_id };
  } finally {
    connection.close();
  }
}
