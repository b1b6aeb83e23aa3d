import { randomUUID } from 'node:crypto';
import { forbidden, notFound, validation } from '@githost/errors';
import { permissionFor } from './access.js';
import { manageableRepositoryId, readableRepositoryId, REPOSITORY_NOT_FOUND, type RepoAccess } from './repo-access.js';
import { chooseShard, type ShardPlacement } from './placement.js';
import { parseCollaboratorPermission, type CreateRepositoryInput } from './input.js';
import type { CallContext, RepositoryStorage, RepositoryStore, UserStore } from './ports.js';
import type { Caller, Permission, Repository, User } from './types.js';

export type { RepoAccess };
const NAME_SHAPE = /^[A-Za-z0-9._-]{1,100}$/;

export class RepositoryService {
  constructor(
    private readonly repos: RepositoryStore,
    private readonly users: UserStore,
    private readonly storage: RepositoryStorage,
    private readonly placement: ShardPlacement,
    /** Told when undoing a half-created repository failed too, so an operator can clean up. */
    private readonly onOrphan: (repositoryId: string, err: unknown) => void = () => undefined,
  ) {}

  /**
   * Row and bare repository appear together or not at all: the row is inserted and git-storage
   * called inside one transaction, so a storage failure rolls the row back; if the commit fails
   * after storage succeeded, the bare repository is removed again.
   */
  async create(caller: Caller, input: CreateRepositoryInput, ctx: CallContext = {}): Promise<Repository> {
    const owner = await this.ownerFor(caller, input.owner);
    const id = randomUUID();
    const shard = chooseShard(this.placement, this.placement.defaultShard ? new Map() : await this.repos.countByShard());
    let stored = false;
    try {
      return await this.repos.insertWith(
        { id, owner_id: owner.id, name: input.name, private: input.private, default_branch: input.default_branch, description: input.description, allow_tag_changes: false, shard },
        async () => {
          await this.storage.createRepository(shard, id, input.default_branch, ctx);
          stored = true;
        },
      );
    } catch (err) {
      if (stored) await this.storage.removeRepository(shard, id, ctx).catch((removeErr: unknown) => this.onOrphan(id, removeErr));
      throw err;
    }
  }

  /** CONTRACT §8: `owner` other than self is for site admins; the bootstrap admin has no self. */
  private async ownerFor(caller: Caller, owner: string | undefined): Promise<User> {
    if (owner === undefined) {
      if (!caller.user_id) throw validation('owner is required: the bootstrap admin has no user record to own the repository');
      const [self] = await this.users.byIds([caller.user_id]);
      if (!self) throw notFound('User not found');
      return self;
    }
    const user = NAME_SHAPE.test(owner) ? await this.users.byUsername(owner) : null;
    // A non-admin learns nothing about other users: every foreign owner is 403 alike.
    if (!caller.is_admin && (!user || user.id !== caller.user_id)) throw forbidden();
    if (!user) throw notFound('User not found');
    return user;
  }

  /** GET /api/repos/{owner}/{repo}: read access, else the same 404 as a missing repository (CONTRACT §9). */
  async get(access: RepoAccess | null): Promise<Repository> {
    return this.byId(readableRepositoryId(access));
  }

  async byId(id: string): Promise<Repository> {
    const repo = id ? await this.repos.byId(id) : null;
    if (!repo) throw notFound(REPOSITORY_NOT_FOUND);
    return repo;
  }

  /**
   * The gateway's question: this repository and what this caller may do on it. The caller's
   * admin flag is read from the user record, never taken from the request.
   */
  async authorize(owner: string, name: string, who: { user_id: string; bootstrap_admin: boolean }): Promise<{ repository: Repository; permission: Permission }> {
    const userId = who.bootstrap_admin || !who.user_id ? null : who.user_id;
    const facts = NAME_SHAPE.test(owner) && NAME_SHAPE.test(name) ? await this.repos.accessFacts(owner, name, userId) : null;
    if (!facts) throw notFound(REPOSITORY_NOT_FOUND);
    // An id that matches no user (deleted, or made up) is nobody in particular: anonymous.
    const caller: Caller | null = who.bootstrap_admin
      ? { user_id: null, username: '', is_admin: true }
      : facts.caller && { user_id: facts.caller.id, username: facts.caller.username, is_admin: facts.caller.is_admin };
    return { repository: facts.repository, permission: permissionFor(facts.repository, caller, facts.collaborator) };
  }

  /** CONTRACT §9 Access: only the owner or a site admin (permission `admin`) manages collaborators. */
  async setCollaborator(access: RepoAccess | null, username: string, body: unknown): Promise<void> {
    const repo = await this.manageable(access);
    const permission = parseCollaboratorPermission(body);
    const user = await this.collaboratorUser(username);
    if (user.id === repo.owner_id) throw validation('The owner already has full access and cannot be a collaborator');
    await this.repos.setCollaborator(repo.id, user.id, permission);
  }

  /** Removing someone who is not a collaborator is not an error: the end state is what was asked. */
  async removeCollaborator(access: RepoAccess | null, username: string): Promise<void> {
    const repo = await this.manageable(access);
    const user = await this.collaboratorUser(username);
    await this.repos.removeCollaborator(repo.id, user.id);
  }

  private async manageable(access: RepoAccess | null): Promise<Repository> {
    return this.byId(manageableRepositoryId(access));
  }

  private async collaboratorUser(username: string): Promise<User> {
    const user = NAME_SHAPE.test(username) ? await this.users.byUsername(username) : null;
    if (!user) throw notFound('User not found');
    return user;
  }
}
