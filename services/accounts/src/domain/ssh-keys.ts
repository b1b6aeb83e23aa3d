import { notFound, validation } from '@githost/errors';
import type { AccountsDeps } from './deps.js';
import { parseNewSshKey } from './input.js';
import type { SshKeyOwner, SshKeyRecord } from './ports.js';
import { manageableRepositoryId, REPOSITORY_NOT_FOUND, type RepoAccess } from './repo-access.js';
import { isSha256Fingerprint } from './ssh-public-key.js';
import { NO_USER_RECORD } from './tokens.js';
import type { Caller, Repository, User } from './types.js';
import { existing } from './user-admin.js';
import { requireSiteAdmin } from './users.js';

/*
 * docs/decisions/ssh-keys.md: users' SSH keys (`/api/user/keys`, a site admin's
 * `/api/admin/users/{username}/keys`) and repositories' deploy keys
 * (`/api/repos/{owner}/{repo}/keys`, managed by the repository's admins), and the lookup the SSH
 * server authenticates a connection's key with.
 */

type KeyDeps = Pick<AccountsDeps, 'sshKeys'>;

const KEY_NOT_FOUND = 'Key not found';

/** Key ids are positive integers; anything else names no key. */
export function keyIdOf(text: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) throw notFound(KEY_NOT_FOUND);
  return Number(text);
}

function ownUser(caller: Caller): SshKeyOwner {
  if (!caller.user_id) throw validation(NO_USER_RECORD);
  return { user_id: caller.user_id };
}

async function addKey(deps: KeyDeps, owner: SshKeyOwner, body: unknown, deployKey: boolean): Promise<SshKeyRecord> {
  const input = parseNewSshKey(body);
  const record = await deps.sshKeys.insert(owner, { title: input.title, key: input.key.key, fingerprint: input.key.fingerprint, read_only: deployKey ? input.read_only : false });
  if (!record) throw notFound('user_id' in owner ? 'User not found' : REPOSITORY_NOT_FOUND);
  return record;
}

async function getKey(deps: KeyDeps, owner: SshKeyOwner, id: string): Promise<SshKeyRecord> {
  const key = await deps.sshKeys.get(owner, keyIdOf(id));
  if (!key) throw notFound(KEY_NOT_FOUND);
  return key;
}

async function removeKey(deps: KeyDeps, owner: SshKeyOwner, id: string): Promise<void> {
  if (!(await deps.sshKeys.remove(owner, keyIdOf(id)))) throw notFound(KEY_NOT_FOUND);
}

/* Each use case is async, so a refused caller is a rejected promise like any other refusal. */
export const addOwnKey = async (deps: KeyDeps, caller: Caller, body: unknown) => addKey(deps, ownUser(caller), body, false);
export const listOwnKeys = async (deps: KeyDeps, caller: Caller) => deps.sshKeys.list(ownUser(caller));
export const getOwnKey = async (deps: KeyDeps, caller: Caller, id: string) => getKey(deps, ownUser(caller), id);
export const deleteOwnKey = async (deps: KeyDeps, caller: Caller, id: string) => removeKey(deps, ownUser(caller), id);

/** A site admin lists and removes anyone's keys; others get 403 before anything is read. */
export async function listUserKeys(deps: Pick<AccountsDeps, 'sshKeys' | 'users'>, caller: Caller, username: string): Promise<SshKeyRecord[]> {
  requireSiteAdmin(caller);
  return deps.sshKeys.list({ user_id: (await existing(deps, username)).id });
}

export async function deleteUserKey(deps: Pick<AccountsDeps, 'sshKeys' | 'users'>, caller: Caller, username: string, id: string): Promise<void> {
  requireSiteAdmin(caller);
  await removeKey(deps, { user_id: (await existing(deps, username)).id }, id);
}

/** Deploy keys: the repository's admins only (CONTRACT §9 Access: a writer 403, a stranger to a private repository 404). */
const deployOwner = (access: RepoAccess | null): SshKeyOwner => ({ repository_id: manageableRepositoryId(access) });

export const addDeployKey = async (deps: KeyDeps, access: RepoAccess | null, body: unknown) => addKey(deps, deployOwner(access), body, true);
export const listDeployKeys = async (deps: KeyDeps, access: RepoAccess | null) => deps.sshKeys.list(deployOwner(access));
export const getDeployKey = async (deps: KeyDeps, access: RepoAccess | null, id: string) => getKey(deps, deployOwner(access), id);
export const deleteDeployKey = async (deps: KeyDeps, access: RepoAccess | null, id: string) => removeKey(deps, deployOwner(access), id);

/** What a key authenticates as, read fresh on every call (no cache: a removed key, user or
 *  repository, or a suspension, refuses the key at once). */
export type SshKeyLookup =
  | { outcome: 'not_found' }
  | { outcome: 'refused'; key: SshKeyRecord }
  | { outcome: 'user'; key: SshKeyRecord; user: User }
  | { outcome: 'deploy_key'; key: SshKeyRecord; repository: Repository };

/** The key named by its fingerprint (the SSH server) or its id (OpenSSH mode's `githost-serve key-<id>`). */
export type SshKeyName = { fingerprint: string } | { key_id: number };

export async function lookupSshKey(deps: Pick<AccountsDeps, 'sshKeys' | 'users' | 'repositories'>, name: string | SshKeyName): Promise<SshKeyLookup> {
  const by = typeof name === 'string' ? { fingerprint: name } : name;
  let found;
  if ('key_id' in by) {
    if (!Number.isSafeInteger(by.key_id) || by.key_id <= 0) throw validation('key_id must be a positive integer');
    found = await deps.sshKeys.byId(by.key_id);
  } else {
    if (!isSha256Fingerprint(by.fingerprint)) throw validation('fingerprint must be SHA256:<43 base64 characters>, as ssh-keygen -l prints it');
    found = await deps.sshKeys.byFingerprint(by.fingerprint);
  }
  if (!found) return { outcome: 'not_found' };
  const { key, owner } = found;
  if ('user_id' in owner) {
    const [user] = await deps.users.byIds([owner.user_id]);
    if (!user) return { outcome: 'not_found' };
    return user.suspended_at ? { outcome: 'refused', key } : { outcome: 'user', key, user };
  }
  const repository = await deps.repositories.byId(owner.repository_id);
  if (!repository) return { outcome: 'not_found' };
  // A suspended owner's repository lets no one in by its keys either, as it lets in no token of theirs.
  const [repositoryOwner] = await deps.users.byIds([repository.owner_id]);
  if (!repositoryOwner) return { outcome: 'not_found' };
  return repositoryOwner.suspended_at ? { outcome: 'refused', key } : { outcome: 'deploy_key', key, repository };
}
