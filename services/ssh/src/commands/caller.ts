import type { accounts } from '@githost/protos';
import { repoFieldsOf, type Principal, type RepoFields } from '@githost/identity';

/** Who an authenticated SSH key is (accounts' LookupSshKey answer, read fresh per connection). */
export interface SshCaller {
  keyId: string;
  kind: 'user' | 'deploy_key';
  user?: { id: string; username: string; email: string; is_admin: boolean };
  /** A deploy key's one repository. */
  repository?: RepoFields;
  /** A deploy key that may only fetch. */
  readOnly?: boolean;
}

/** The caller a LookupSshKey answer describes; null when the key authenticates no one
 *  (`not_found`, `refused`: a suspended user, or an answer missing its user or repository). */
export function sshCallerOf(res: accounts.LookupSshKeyResponse__Output): SshCaller | null {
  const keyId = String(res.key_id);
  if (res.outcome === 'user' && res.user) {
    const u = res.user;
    return { keyId, kind: 'user', user: { id: u.id, username: u.username, email: u.email, is_admin: u.is_admin } };
  }
  if (res.outcome === 'deploy_key' && res.repository) {
    return { keyId, kind: 'deploy_key', repository: repoFieldsOf({ ...res.repository, shard: res.repository.shard || 'default' }), readOnly: res.read_only };
  }
  return null;
}

/**
 * The principal an SSH caller acts as towards the other services (docs/decisions/ssh-server.md#deploy-keys).
 * A user's key is the user, without site-admin powers (like a token without the `admin` scope:
 * a key proves less than a chosen token). A deploy key has no user: it acts as the repository's
 * owner, its permission fixed by the key alone (deployKeyRepository), so its pushes name the owner
 * as pusher, as Gitea's do.
 */
export function principalOf(caller: SshCaller): Principal {
  if (caller.kind === 'user' && caller.user) return { user_id: caller.user.id, username: caller.user.username, email: caller.user.email, is_admin: false };
  const repo = caller.repository!;
  return { user_id: repo.owner_id, username: repo.owner, email: '', is_admin: false };
}

/** The line a shell request gets (docs/decisions/ssh-server.md#commands), as GitHub words it. */
export function greeting(caller: SshCaller): string {
  if (caller.kind === 'deploy_key' && caller.repository) {
    return `Hi ${caller.repository.owner}/${caller.repository.name}! You've authenticated with a deploy key, but githost does not provide shell access.`;
  }
  return `Hi ${caller.user?.username ?? 'there'}! You've authenticated, but githost does not provide shell access.`;
}
