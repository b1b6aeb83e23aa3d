import { createAccountsClient, type AccountsServiceClient, type accounts } from '@githost/protos';
import { AppError } from '@githost/errors';
import { callUnary, waitForReady } from '@githost/grpc';
import { repoFieldsOf, type Permission, type Principal, type RepoContext } from '@githost/identity';
import { sshCallerOf, type SshCaller } from '../commands/index.js';

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

export function grpcSshAccounts(address: string, internalSecret: string): SshAccounts {
  const client: AccountsServiceClient = createAccountsClient(address, internalSecret);
  return {
    async callerByFingerprint(fingerprint, requestId) {
      const res = await callUnary<accounts.LookupSshKeyRequest, accounts.LookupSshKeyResponse__Output>(client, client.LookupSshKey, { fingerprint }, { requestId, timeoutMs: TIMEOUT_MS });
      return sshCallerOf(res);
    },
    async callerByKeyId(keyId, requestId) {
      const res = await callUnary<accounts.LookupSshKeyRequest, accounts.LookupSshKeyResponse__Output>(client, client.LookupSshKey, { key_id: keyId }, { requestId, timeoutMs: TIMEOUT_MS });
      return sshCallerOf(res);
    },
    async authorize(principal, owner, name, requestId) {
      // A key acts without site-admin powers (commands/caller.ts principalOf).
      const req = { user_id: principal.user_id ?? '', bootstrap_admin: false, without_site_admin: true, owner, name };
      try {
        const res = await callUnary<accounts.AuthorizeRequest, accounts.AuthorizeResponse__Output>(client, client.Authorize, req, { requestId, timeoutMs: TIMEOUT_MS });
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
    reachable: () => waitForReady(client, 1_000),
    close: () => client.close(),
  };
}
