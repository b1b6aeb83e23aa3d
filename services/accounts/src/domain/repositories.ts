import { randomUUID } from 'node:crypto';
import { forbidden, notFound, unauthenticated, validation } from '@githost/errors';
import { permissionFor } from './access.js';
import type { Page, Paged } from './paging.js';
import { manageableRepositoryId, readableRepositoryId, REPOSITORY_NOT_FOUND, writableRepositoryId, type RepoAccess } from './repo-access.js';
import { defaultBranchAfterFirstPush } from './default-branch.js';
import { chooseShard } from './placement.js';
import { parseCollaboratorPermission, type CreateRepositoryInput } from './input.js';
import type { AccountsDeps } from './deps.js';
import type { CallContext, Collaborator, ExploreFilter, RepositoryChanges } from './ports.js';
import type { Caller, Permission, Repository, User } from './types.js';

export type { RepoAccess };
const NAME_SHAPE = /^[A-Za-z0-9._-]{1,100}$/;

/** The stores, git-storage and placement; without the two observers a failed undo is only thrown away. */
type RepositoryDeps = Pick<AccountsDeps, 'repositories' | 'users' | 'storage' | 'placement'> & Partial<Pick<AccountsDeps, 'onOrphan' | 'onHeadDrift'>>;

/**
 * Row and bare repository appear together or not at all: the row is inserted and git-storage
 * called inside one transaction, so a storage failure rolls the row back; if the commit fails
 * after storage succeeded, the bare repository is removed again.
 */
export async function createRepository(deps: RepositoryDeps, caller: Caller, input: CreateRepositoryInput, ctx: CallContext = {}): Promise<Repository> {
  const owner = await ownerFor(deps, caller, input.owner);
  const id = randomUUID();
  const shard = chooseShard(deps.placement, deps.placement.defaultShard ? new Map() : await deps.repositories.countByShard());
  let stored = false;
  try {
    return await deps.repositories.insertWith(
      { id, owner_id: owner.id, name: input.name, private: input.private, default_branch: input.default_branch, description: input.description, allow_tag_changes: false, shard },
      async () => {
        await deps.storage.createRepository(shard, id, input.default_branch, ctx);
        stored = true;
      },
    );
  } catch (err) {
    if (stored) await deps.storage.removeRepository(shard, id, ctx).catch((removeErr: unknown) => deps.onOrphan?.(id, removeErr));
    throw err;
  }
}

/** CONTRACT §8: `owner` other than self is for site admins; the bootstrap admin has no self. */
async function ownerFor(deps: RepositoryDeps, caller: Caller, owner: string | undefined): Promise<User> {
  if (owner === undefined) {
    if (!caller.user_id) throw validation('owner is required: the bootstrap admin has no user record to own the repository');
    const [self] = await deps.users.byIds([caller.user_id]);
    if (!self) throw notFound('User not found');
    // A principal signed before its user was suspended (services/accounts/README.md#users-and-tokens).
    if (self.suspended_at) throw unauthenticated();
    return self;
  }
  const user = NAME_SHAPE.test(owner) ? await deps.users.byUsername(owner) : null;
  // A non-admin learns nothing about other users: every foreign owner is 403 alike.
  if (!caller.is_admin && (!user || user.id !== caller.user_id)) throw forbidden();
  if (!user) throw notFound('User not found');
  return user;
}

/** GET /api/repos/{owner}/{repo}: read access, else the same 404 as a missing repository (CONTRACT §9). */
export async function getRepository(deps: RepositoryDeps, access: RepoAccess | null): Promise<Repository> {
  return repositoryById(deps, readableRepositoryId(access));
}

export async function repositoryById(deps: RepositoryDeps, id: string): Promise<Repository> {
  const repo = id ? await deps.repositories.byId(id) : null;
  if (!repo) throw notFound(REPOSITORY_NOT_FOUND);
  return repo;
}

/**
 * The gateway's question: this repository and what this caller may do on it. The caller's
 * admin flag is read from the user record, never taken from the request; the request can only
 * give it up (`without_site_admin`: the token lacks the admin scope, services/accounts/README.md#token-scopes).
 * A suspended user is refused outright (UNAUTHENTICATED), as their tokens are.
 */
export async function authorizeCaller(deps: RepositoryDeps, owner: string, name: string, who: { user_id: string; bootstrap_admin: boolean; without_site_admin?: boolean }): Promise<{ repository: Repository; permission: Permission }> {
  const userId = who.bootstrap_admin || !who.user_id ? null : who.user_id;
  const facts = NAME_SHAPE.test(owner) && NAME_SHAPE.test(name) ? await deps.repositories.accessFacts(owner, name, userId) : null;
  if (!facts) throw notFound(REPOSITORY_NOT_FOUND);
  if (facts.caller?.suspended_at) throw unauthenticated();
  // An id that matches no user (deleted, or made up) is nobody in particular: anonymous.
  const caller: Caller | null = who.bootstrap_admin
    ? { user_id: null, username: '', is_admin: true }
    : facts.caller && { user_id: facts.caller.id, username: facts.caller.username, is_admin: facts.caller.is_admin && !who.without_site_admin };
  return { repository: facts.repository, permission: permissionFor(facts.repository, caller, facts.collaborator) };
}

/**
 * PATCH /api/repos/{owner}/{repo} (owner or site admin). A new default branch must be a valid
 * name and, once the repository has any branch, an existing one; git-storage points HEAD at it
 * inside the row's transaction, so the row and HEAD change together (HEAD is put back if the
 * commit fails).
 */
export async function updateRepository(deps: RepositoryDeps, access: RepoAccess | null, changes: RepositoryChanges, ctx: CallContext = {}): Promise<Repository> {
  const current = await manageable(deps, access);
  const branch = changes.default_branch;
  if (branch !== undefined && branch !== current.default_branch) {
    const branches = await deps.storage.listBranches(current.shard, current.id, ctx);
    if (branches.length > 0 && !branches.includes(branch)) throw validation(`default_branch must name an existing branch: ${branch}`);
  }
  return change(deps, current, changes, ctx);
}

/**
 * AdoptPushedBranches, git-storage's call after a push created `pushed`, the first branches of
 * a repository that had none (services/accounts/README.md#default-branch): the default branch becomes
 * one of them unless it is among them, row and HEAD together as on a PATCH. Asked again (a
 * retry, or git-storage settling the push again after a restart), it changes nothing more.
 */
export async function adoptPushedBranches(deps: RepositoryDeps, id: string, pushed: readonly string[], ctx: CallContext = {}): Promise<Repository> {
  const current = await repositoryById(deps, id);
  const branch = defaultBranchAfterFirstPush(current.default_branch, pushed);
  if (branch === current.default_branch) return current;
  return change(deps, current, { default_branch: branch }, ctx);
}

/** Applies `changes` to the row; a new default branch moves HEAD inside the row's transaction. */
async function change(deps: RepositoryDeps, current: Repository, changes: RepositoryChanges, ctx: CallContext): Promise<Repository> {
  const branch = changes.default_branch;
  let moved: { shard: string; from: string } | undefined;
  try {
    const result = await deps.repositories.updateWith(current.id, changes, async (before) => {
      if (branch === undefined || branch === before.default_branch) return;
      await deps.storage.setDefaultBranch(before.shard, before.id, branch, ctx);
      moved = { shard: before.shard, from: before.default_branch };
    });
    if (!result) throw notFound(REPOSITORY_NOT_FOUND);
    // What the Gitea pull request list shows of the repository (its description, visibility,
    // default branch) is kept at the gateway's edge by this announcement's version.
    await deps.storage.announceChange?.(result.after.shard, result.after.id, ctx);
    return result.after;
  } catch (err) {
    const undo = moved;
    if (undo) await deps.storage.setDefaultBranch(undo.shard, current.id, undo.from, ctx).catch((headErr: unknown) => deps.onHeadDrift?.(current.id, headErr));
    throw err;
  }
}

/**
 * DELETE /api/repos/{owner}/{repo} (owner or site admin). The rows (repository, collaborators,
 * protections) are deleted in a transaction that commits only after git-storage removed the
 * bare repository and journaled `repository_deleted` (CONTRACT §9), so a storage failure leaves
 * the repository whole. A crash between the two leaves a row whose directory is gone: deleting
 * it again finishes the job, since removing a missing directory succeeds.
 */
export async function deleteRepository(deps: RepositoryDeps, access: RepoAccess | null, caller: Caller, ctx: CallContext = {}): Promise<void> {
  const current = await manageable(deps, access);
  const deleted = await deps.repositories.deleteWith(current.id, (repo) =>
    deps.storage.removeRepository(repo.shard, repo.id, ctx, { owner: repo.owner, name: repo.name, pusher: caller.username }),
  );
  if (!deleted) throw notFound(REPOSITORY_NOT_FOUND);
}

/** GET /api/repos/{owner}/{repo}/collaborators: write access, as GitHub's list. */
export async function listCollaborators(deps: RepositoryDeps, access: RepoAccess | null, page: Page): Promise<Paged<Collaborator>> {
  return deps.repositories.listCollaborators(writableRepositoryId(access), page);
}

/** GET /api/user/repos: what the caller owns or collaborates on; the bootstrap admin has no
 *  user record, so nothing. */
export async function listMyRepositories(deps: RepositoryDeps, caller: Caller, page: Page): Promise<Paged<Repository>> {
  if (!caller.user_id) return { items: [], total: 0 };
  return deps.repositories.listForMember(caller.user_id, page);
}

/** GET /api/users/{username}/repos: that user's repositories the caller may read. */
export async function listUserRepositories(deps: RepositoryDeps, username: string, caller: Caller | null, page: Page): Promise<Paged<Repository>> {
  const owner = NAME_SHAPE.test(username) ? await deps.users.byUsername(username) : null;
  if (!owner) throw notFound('User not found');
  return deps.repositories.listOwnedBy(owner.id, { userId: caller?.user_id ?? null, isAdmin: caller?.is_admin === true }, page);
}

/** GET /api/repos: every repository the caller may read, newest first (docs/decisions/explore-lists.md). */
export function exploreRepositories(deps: RepositoryDeps, caller: Caller | null, filter: ExploreFilter, page: Page): Promise<Paged<Repository>> {
  return deps.repositories.listReadable({ userId: caller?.user_id ?? null, isAdmin: caller?.is_admin === true }, filter, page);
}

/** CONTRACT §9 Access: only the owner or a site admin (permission `admin`) manages collaborators. */
export async function putCollaborator(deps: RepositoryDeps, access: RepoAccess | null, username: string, body: unknown): Promise<void> {
  const repo = await manageable(deps, access);
  const permission = parseCollaboratorPermission(body);
  const user = await collaboratorUser(deps, username);
  if (user.id === repo.owner_id) throw validation('The owner already has full access and cannot be a collaborator');
  await deps.repositories.setCollaborator(repo.id, user.id, permission);
}

/** Removing someone who is not a collaborator is not an error: the end state is what was asked. */
export async function removeCollaborator(deps: RepositoryDeps, access: RepoAccess | null, username: string): Promise<void> {
  const repo = await manageable(deps, access);
  const user = await collaboratorUser(deps, username);
  await deps.repositories.removeCollaborator(repo.id, user.id);
}

async function manageable(deps: RepositoryDeps, access: RepoAccess | null): Promise<Repository> {
  return repositoryById(deps, manageableRepositoryId(access));
}

async function collaboratorUser(deps: RepositoryDeps, username: string): Promise<User> {
  const user = NAME_SHAPE.test(username) ? await deps.users.byUsername(username) : null;
  if (!user) throw notFound('User not found');
  return user;
}
