import type { SshKeyRecord, StoredProtection, TokenRecord } from '../domain/ports.js';
import type { IssuedToken, Repository, User } from '../domain/types.js';

/** Response shapes of CONTRACT §8. */

export const userJson = (u: User) => ({ id: u.id, username: u.username, email: u.email, is_admin: u.is_admin, created_at: u.created_at });

/** What anyone may see of a user (GET /api/users): no email, no role. */
export const publicUserJson = (u: User) => ({ username: u.username, created_at: u.created_at });

/** The admin endpoints' view: the record with its suspension (GitHub's `suspended_at`). */
export const adminUserJson = (u: User) => ({ ...userJson(u), suspended: u.suspended_at !== null, suspended_at: u.suspended_at });

export const issuedTokenJson = (t: IssuedToken) => ({ id: t.id, name: t.name, token: t.token, scopes: t.scopes, expires_at: t.expires_at, created_at: t.created_at });

/** Never the secret: it is not stored. */
export const tokenJson = (t: TokenRecord) => ({ id: t.id, name: t.name, scopes: t.scopes, created_at: t.created_at, last_used_at: t.last_used_at, expires_at: t.expires_at });

export function repositoryJson(r: Repository, publicUrl: string) {
  return {
    id: r.id,
    owner: r.owner,
    name: r.name,
    full_name: `${r.owner}/${r.name}`,
    private: r.private,
    default_branch: r.default_branch,
    description: r.description,
    allow_tag_changes: r.allow_tag_changes,
    clone_url: `${publicUrl}/${r.owner}/${r.name}.git`,
    created_at: r.created_at,
  };
}

export const protectionJson = (p: StoredProtection) => ({
  pattern: p.pattern,
  allow_force_pushes: p.allow_force_pushes,
  allow_deletions: p.allow_deletions,
  required_approvals: p.required_approvals,
  required_status_checks: p.required_status_checks,
  dismiss_stale_approvals: p.dismiss_stale_approvals,
  push: p.push,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

/** GitHub's public key fields (GET /user/keys). */
export function sshKeyJson(key: SshKeyRecord) {
  return { id: key.id, title: key.title, key: key.key, fingerprint: key.fingerprint, created_at: key.created_at };
}

/** GitHub's deploy key fields (GET /repos/{owner}/{repo}/keys). */
export function deployKeyJson(key: SshKeyRecord) {
  return { ...sshKeyJson(key), read_only: key.read_only };
}
