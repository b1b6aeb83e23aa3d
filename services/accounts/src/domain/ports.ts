import type { BranchProtection, RefPolicy } from '@githost/ref-policy';
import type { Page, Paged } from './paging.js';
import type { UserChanges } from './input.js';
import type { CollaboratorPermission, Repository, TokenScope, User } from './types.js';

/** Data access the domain needs; implemented in src/db over Postgres or PGlite. */
export interface UserStore {
  /** Throws conflict `Username already taken` when the name exists in any letter case. */
  insert(user: Omit<User, 'created_at' | 'suspended_at'>, passwordHash?: string): Promise<User>;
  byIds(ids: string[]): Promise<User[]>;
  /** Users with any of the ids or exactly one of the usernames, each once, by username. */
  find(ids: string[], usernames: string[]): Promise<User[]>;
  /** Case-insensitive. */
  byUsername(username: string): Promise<User | null>;
  /** Every user, by username (any letter case). */
  list(page: Page): Promise<Paged<User>>;
  /** Users who are not suspended whose name holds `nameContains` (any letter case), by username. */
  listActive(nameContains: string | undefined, page: Page): Promise<Paged<User>>;
  /** Applies the changes (`suspended` sets or clears `suspended_at`); null when no such user. */
  update(id: string, changes: UserChanges): Promise<User | null>;
  /**
   * Deletes the user with their tokens and collaborations, unless they own a repository
   * (checked under the row's lock, so a repository created meanwhile cannot be orphaned).
   */
  remove(id: string): Promise<'deleted' | 'owns_repositories' | 'not_found'>;
}

export interface TokenRecord {
  id: string;
  user_id: string;
  name: string | null;
  /** Closed under implication (domain/scopes.ts). */
  scopes: TokenScope[];
  created_at: string;
  last_used_at: string | null;
  /** ISO 8601; null: never expires. */
  expires_at: string | null;
}

export interface TokenStore {
  insert(token: { id: string; user_id: string; name: string | null; token_hash: string; scopes: TokenScope[]; expires_at: string | null }): Promise<TokenRecord>;
  /** The token with this hash and its user, unless it is revoked or expired or the user is
   *  suspended (the database's clock decides expiry). */
  findActive(tokenHash: string): Promise<{ token: TokenRecord; user: User } | null>;
  /** Sets last_used_at to now unless it was set within `minIntervalMs`. */
  touch(id: string, minIntervalMs: number): Promise<void>;
  /** Revokes one of the user's tokens (any user's when `userId` is null); false when none matched. */
  revoke(id: string, userId: string | null): Promise<boolean>;
  /** The user's tokens that are not revoked (expired ones included), oldest first. */
  listForUser(userId: string): Promise<TokenRecord[]>;
}

/** A sign-in session as stored (services/accounts/README.md#sessions); times ISO 8601. */
export interface SessionRecord {
  id: string;
  user_id: string;
  created_at: string;
  last_used_at: string;
  /** When it ends unless used again (never after `expires_at`). */
  idle_expires_at: string;
  expires_at: string;
  user_agent: string | null;
  address: string | null;
}

export interface SessionStore {
  /** The user (any letter case) with their password hash (null when none is set). */
  credentialsOf(username: string): Promise<{ user: User; password_hash: string | null } | null>;
  /** Sets the user's password hash and ends their sessions but `keepSessionId`, together; false
   *  when the user is gone. */
  setPassword(userId: string, passwordHash: string, keepSessionId: string | null): Promise<boolean>;
  insert(session: SessionRecord & { secret_hash: string }): Promise<SessionRecord>;
  /** The session with this secret hash and its user, unless it has ended by `now` (idle or
   *  absolute) or the user is suspended. */
  findActive(secretHash: string, now: Date): Promise<{ session: SessionRecord; user: User } | null>;
  touch(id: string, now: Date, idleExpiresAt: string): Promise<void>;
  /** The user's sessions that have not ended by `now`, newest first. */
  listForUser(userId: string, now: Date): Promise<SessionRecord[]>;
  /** Ends one of the user's sessions; false when none matched. */
  remove(id: string, userId: string): Promise<boolean>;
  removeAllOf(userId: string): Promise<void>;
  /** Failed sign-ins recorded for the key since `since`, and the oldest of them. */
  failures(kind: 'account' | 'address', key: string, since: Date): Promise<{ count: number; oldest: string | null }>;
  recordFailures(keys: { kind: 'account' | 'address'; key: string }[], at: Date): Promise<void>;
}

export interface AccessFacts {
  repository: Repository;
  caller: Pick<User, 'id' | 'username' | 'is_admin' | 'suspended_at'> | null;
  collaborator: CollaboratorPermission | null;
}

export interface RepositoryStore {
  /**
   * Inserts the row and runs `during` in the same transaction: a failure of `during` leaves no
   * row. Throws conflict `Repository already exists` for a duplicate owner/name (any case).
   */
  insertWith(repo: Omit<Repository, 'created_at' | 'owner'>, during: () => Promise<void>): Promise<Repository>;
  byId(id: string): Promise<Repository | null>;
  /**
   * Everything an access decision needs, in one round trip (the gateway asks on every repository
   * request): the repository by owner/name (case-insensitive), the user `userId` if it exists,
   * and that user's collaborator permission. Null when no such repository.
   */
  accessFacts(owner: string, name: string, userId: string | null): Promise<AccessFacts | null>;
  setCollaborator(repositoryId: string, userId: string, permission: CollaboratorPermission): Promise<void>;
  removeCollaborator(repositoryId: string, userId: string): Promise<void>;
  /** How many repositories each shard holds (shards holding none are absent). */
  countByShard(): Promise<Map<string, number>>;
  /**
   * Locks the row, applies `changes` and runs `during(before)` in the same transaction: a failure
   * of `during` leaves the row as it was. Null when the repository does not exist.
   */
  updateWith(id: string, changes: RepositoryChanges, during: (before: Repository) => Promise<void>): Promise<{ before: Repository; after: Repository } | null>;
  /**
   * Locks and deletes the row (its collaborators and protections with it), runs `during` and
   * commits only when it succeeds: a failure of `during` leaves everything as it was. False when
   * the repository does not exist.
   */
  deleteWith(id: string, during: (repo: Repository) => Promise<void>): Promise<boolean>;
  /** Repositories the user owns or collaborates on, by full name. */
  listForMember(userId: string, page: Page): Promise<Paged<Repository>>;
  /** The owner's repositories the viewer may read (CONTRACT §3), by name. */
  listOwnedBy(ownerId: string, viewer: { userId: string | null; isAdmin: boolean }, page: Page): Promise<Paged<Repository>>;
  /** Every repository the viewer may read (CONTRACT §3) that the filter keeps, newest first
   *  (docs/decisions/explore-lists.md). */
  listReadable(viewer: { userId: string | null; isAdmin: boolean }, filter: ExploreFilter, page: Page): Promise<Paged<Repository>>;
  /** Explicit collaborators, by username. */
  listCollaborators(repositoryId: string, page: Page): Promise<Paged<Collaborator>>;
}

/** The explore list's filters; an absent one keeps every repository. */
export interface ExploreFilter {
  /** A part of the name, any letter case (`q`). */
  nameContains?: string;
  /** The integer id Gitea's JSON gives the repository (`gitea_id`, docs/decisions/gitea-api.md#integer-ids). */
  giteaId?: number;
}

/** Fields a PATCH may change; absent ones stay as they are. */
export interface RepositoryChanges {
  description?: string | null;
  private?: boolean;
  default_branch?: string;
  allow_tag_changes?: boolean;
}

export interface Collaborator {
  username: string;
  permission: CollaboratorPermission;
}

/** A branch protection rule as stored, with its timestamps (ISO 8601). */
export type StoredProtection = BranchProtection & { created_at: string; updated_at: string };

export interface ProtectionStore {
  /** The repository's rules, in code-unit order of their patterns. */
  list(repositoryId: string): Promise<StoredProtection[]>;
  get(repositoryId: string, pattern: string): Promise<StoredProtection | null>;
  /**
   * Creates or replaces the rule for its pattern; `created` tells which. Null when the repository
   * is gone. Throws validation when a new rule would make more than `maxRules`.
   */
  put(repositoryId: string, rule: BranchProtection, maxRules: number): Promise<{ rule: StoredProtection; created: boolean } | null>;
  /** False when there was no such rule. */
  remove(repositoryId: string, pattern: string): Promise<boolean>;
  /** Default branch, tag setting and rules in one read; null for an unknown repository. */
  refPolicy(repositoryId: string): Promise<RefPolicy | null>;
}

/** Carried to other services so one request's log lines join up (X-Request-Id). */
export interface CallContext {
  requestId?: string;
}

/** Who deleted which repository, for git-storage's `repository_deleted` event (CONTRACT §9). */
export interface DeletionEvent {
  owner: string;
  name: string;
  /** Username of the caller who deleted it. */
  pusher: string;
}

/** git-storage, as the domain sees it: each call goes to the shard that holds (or will hold) the repository. */
export interface RepositoryStorage {
  createRepository(shard: string, repositoryId: string, defaultBranch: string, ctx?: CallContext): Promise<void>;
  /** Idempotent (a missing directory is removed already). With `deletion`, git-storage journals a
   *  `repository_deleted` event; without it (undoing a half-created repository), nothing. */
  removeRepository(shard: string, repositoryId: string, ctx?: CallContext, deletion?: DeletionEvent): Promise<void>;
  /** Points HEAD at refs/heads/<branch>. */
  setDefaultBranch(shard: string, repositoryId: string, branch: string, ctx?: CallContext): Promise<void>;
  /** The repository's branch names, without refs/heads/. */
  listBranches(shard: string, repositoryId: string, ctx?: CallContext): Promise<string[]>;
  /** Tells git-storage's watchers that the repository's settings changed and resolves once they
   *  all heard it (docs/decisions/pulls-at-the-edge.md); never throws. */
  announceChange?(shard: string, repositoryId: string, ctx?: CallContext): Promise<void>;
  /** The same for every repository on every shard: a change any of them may show (an account deleted). */
  announceEverywhere?(ctx?: CallContext): Promise<void>;
}

/** Hashes and checks passwords (argon2id in production, src/crypto/argon2.ts). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password and for a hash it cannot read; never throws for either. */
  verify(hash: string, password: string): Promise<boolean>;
}

/** Where a push's time is kept for the Explore order (docs/decisions/explore-lists.md). */
export interface PushActivity {
  recordPush(repositoryId: string, pushedAt: Date): Promise<void>;
}

/** An SSH public key as stored: a user's, or a repository's deploy key (docs/decisions/ssh-keys.md). */
export interface SshKeyRecord {
  id: number;
  title: string;
  /** `<type> <base64>`, no comment. */
  key: string;
  /** `SHA256:…`, unique across users and deploy keys. */
  fingerprint: string;
  /** Deploy keys: may only fetch. Always false for a user's key (the user's permission decides). */
  read_only: boolean;
  created_at: string;
}

/** Whose a key is: exactly one of the two. */
export type SshKeyOwner = { user_id: string } | { repository_id: string };

export interface SshKeyStore {
  /** Throws unprocessable `Key is already in use` when any user or repository has the key. Null
   *  when the owner is gone. */
  insert(owner: SshKeyOwner, key: Omit<SshKeyRecord, 'id' | 'created_at'>): Promise<SshKeyRecord | null>;
  /** The owner's keys, oldest first. */
  list(owner: SshKeyOwner): Promise<SshKeyRecord[]>;
  get(owner: SshKeyOwner, id: number): Promise<SshKeyRecord | null>;
  /** False when the owner has no such key. */
  remove(owner: SshKeyOwner, id: number): Promise<boolean>;
  /** The key with this fingerprint, and whose it is. */
  byFingerprint(fingerprint: string): Promise<{ key: SshKeyRecord; owner: SshKeyOwner } | null>;
  /** The key with this id, and whose it is. */
  byId(id: number): Promise<{ key: SshKeyRecord; owner: SshKeyOwner } | null>;
}
