import { validation } from '@githost/errors';
import type { RepositoryChanges } from './ports.js';
import type { CollaboratorPermission } from './types.js';
import { parseSshPublicKey, type SshPublicKey } from './ssh-public-key.js';
import { checkBranchName, checkEmail, checkRepositoryName, checkUsername } from './names.js';

/** Parsing of request bodies into checked inputs, with messages a caller can act on. */

type Body = Record<string, unknown>;

function asBody(body: unknown): Body {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw validation('Request body must be a JSON object');
  return body as Body;
}

function requiredString(body: Body, field: string): string {
  const v = body[field];
  if (v === undefined || v === null || v === '') throw validation(`${field} is required`);
  if (typeof v !== 'string') throw validation(`${field} must be a string`);
  return v;
}

function optionalString(body: Body, field: string, max: number): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw validation(`${field} must be a string`);
  if (v.length > max) throw validation(`${field} must be at most ${max} characters`);
  return v;
}

function optionalBoolean(body: Body, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw validation(`${field} must be true or false`);
  return v;
}

export interface CreateUserInput {
  username: string;
  email: string;
  is_admin: boolean;
}

export function parseCreateUser(raw: unknown): CreateUserInput {
  const body = asBody(raw);
  const username = checkUsername(requiredString(body, 'username'));
  const email = checkEmail(requiredString(body, 'email').trim());
  return { username, email, is_admin: optionalBoolean(body, 'is_admin') ?? false };
}

export const MAX_TOKEN_NAME = 100;

export function parseTokenName(raw: unknown): string | null {
  const name = optionalString(asBody(raw), 'name', MAX_TOKEN_NAME)?.trim();
  return name ? name : null;
}

export interface CreateRepositoryInput {
  name: string;
  private: boolean;
  default_branch: string;
  description: string | null;
  /** Absent: the caller. */
  owner: string | undefined;
}

export const MAX_DESCRIPTION = 1000;

export function parseCreateRepository(raw: unknown): CreateRepositoryInput {
  const body = asBody(raw);
  const name = checkRepositoryName(requiredString(body, 'name'));
  const branch = optionalString(body, 'default_branch', 1000);
  const owner = optionalString(body, 'owner', 1000);
  return {
    name,
    private: optionalBoolean(body, 'private') ?? false,
    default_branch: branch === undefined || branch === '' ? 'main' : checkBranchName(branch),
    description: optionalString(body, 'description', MAX_DESCRIPTION) ?? null,
    owner: owner === undefined || owner === '' ? undefined : owner,
  };
}

export function parseCollaboratorPermission(raw: unknown): CollaboratorPermission {
  const permission = asBody(raw).permission;
  if (permission !== 'read' && permission !== 'write') throw validation('permission must be "read" or "write"');
  return permission;
}

const UPDATABLE = ['description', 'private', 'default_branch', 'allow_tag_changes'] as const;

/**
 * PATCH /api/repos/{owner}/{repo}: each field optional (null is absent, except `description`,
 * which null clears); unknown fields are ignored, as GitHub does. A body that names none of the
 * fields has nothing to change: 400.
 */
export function parseUpdateRepository(raw: unknown): RepositoryChanges {
  const body = asBody(raw);
  const changes: RepositoryChanges = {};
  if (body.description === null) changes.description = null;
  else {
    const description = optionalString(body, 'description', MAX_DESCRIPTION);
    if (description !== undefined) changes.description = description;
  }
  const isPrivate = optionalBoolean(body, 'private');
  if (isPrivate !== undefined) changes.private = isPrivate;
  const branch = optionalString(body, 'default_branch', 1000);
  if (branch !== undefined) changes.default_branch = checkBranchName(branch);
  const allowTagChanges = optionalBoolean(body, 'allow_tag_changes');
  if (allowTagChanges !== undefined) changes.allow_tag_changes = allowTagChanges;
  if (Object.keys(changes).length === 0) throw validation(`Nothing to change: give at least one of ${UPDATABLE.join(', ')}`);
  return changes;
}

/** PATCH /api/admin/users/{username}: fields a site admin may change; absent ones stay. */
export interface UserChanges {
  email?: string;
  is_admin?: boolean;
  suspended?: boolean;
}

const USER_UPDATABLE = ['email', 'is_admin', 'suspended'] as const;

/** Each field optional (null is absent); unknown fields are ignored, as GitHub does; a body that
 *  names none has nothing to change: 400. */
export function parseUpdateUser(raw: unknown): UserChanges {
  const body = asBody(raw);
  const changes: UserChanges = {};
  const email = optionalString(body, 'email', 1000);
  if (email !== undefined) {
    // Postgres refuses NUL in text; any control character is no part of an address either.
    if ([...email].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f')) throw validation('email must look like an address (name@example.com)');
    changes.email = checkEmail(email.trim());
  }
  const isAdmin = optionalBoolean(body, 'is_admin');
  if (isAdmin !== undefined) changes.is_admin = isAdmin;
  const suspended = optionalBoolean(body, 'suspended');
  if (suspended !== undefined) changes.suspended = suspended;
  if (Object.keys(changes).length === 0) throw validation(`Nothing to change: give at least one of ${USER_UPDATABLE.join(', ')}`);
  return changes;
}

export const MAX_KEY_TITLE = 100;

export interface NewSshKeyInput {
  title: string;
  key: SshPublicKey;
  read_only: boolean;
}

/** `{title?, key, read_only?}` of POST /api/user/keys and deploy keys; the title defaults to the
 *  key's comment, as `ssh-keygen` writes `user@host` there (docs/decisions/ssh-keys.md). */
export function parseNewSshKey(raw: unknown): NewSshKeyInput {
  const body = asBody(raw);
  const title = optionalString(body, 'title', MAX_KEY_TITLE)?.trim();
  const key = parseSshPublicKey(requiredString(body, 'key'));
  const fallback = (key.comment || key.type).slice(0, MAX_KEY_TITLE);
  return { title: title || fallback, key, read_only: optionalBoolean(body, 'read_only') ?? true };
}
