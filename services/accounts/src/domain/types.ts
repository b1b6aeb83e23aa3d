import type { Permission } from '@githost/identity';

export type { Permission };

export interface User {
  id: string;
  username: string;
  email: string;
  is_admin: boolean;
  /** When a site admin suspended the user (ISO 8601); null when not suspended. A suspended
   *  user's tokens do not authenticate and Authorize refuses them (services/accounts/README.md#users-and-tokens). */
  suspended_at: string | null;
  /** ISO 8601. */
  created_at: string;
}

export type CollaboratorPermission = 'read' | 'write';

export interface Repository {
  id: string;
  owner_id: string;
  /** Owner's username, as stored (its canonical case). */
  owner: string;
  name: string;
  private: boolean;
  default_branch: string;
  description: string | null;
  /** Existing tags may be moved or deleted (docs/decisions/branch-protection.md); off by default. */
  allow_tag_changes: boolean;
  /** git-storage shard holding the repository (GIT_STORAGE_SHARDS name); every storage call for it goes there. */
  shard: string;
  created_at: string;
}

/**
 * Who is asking. `null` is an anonymous caller. The bootstrap admin (GITHOST_ADMIN_TOKEN) has no
 * user record: `user_id` null and `is_admin` true.
 */
export interface Caller {
  user_id: string | null;
  username: string;
  is_admin: boolean;
}

/** What a token may do (services/accounts/README.md#token-scopes): cumulative, so stored closed under implication. */
export type TokenScope = 'read' | 'write' | 'admin';

export interface IssuedToken {
  id: string;
  name: string | null;
  /** The secret itself, shown once and never stored. */
  token: string;
  scopes: TokenScope[];
  /** ISO 8601; null when it never expires. */
  expires_at: string | null;
  created_at: string;
}
