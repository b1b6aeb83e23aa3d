import type { Request } from 'express';
import { AppError } from '@githost/errors';
import { canWrite } from '@githost/identity';
import type { Config } from '../config.js';
import type { GatewayClient } from '../gateway-client.js';
import { gatewayFor } from '../http/context.js';
import { repositoryFacts } from '../repos/load.js';
import { giteaRepositoryOf } from '../repos/map-repos.js';
import { giteaUserOf } from '../users/map-users.js';

/**
 * What the pulls, reviews, statuses and hooks routes share: the repository of the path read
 * through the API as the caller (a private one is a 404 for strangers, as everywhere), its Gitea
 * JSON, and the users mapping.
 */
export interface RepoScope {
  gateway: GatewayClient;
  owner: string;
  name: string;
  repoId: string;
  repository: { id: number };
  /** The caller may write (githost's permission write or admin, capped by the token's scopes). */
  canWrite: boolean;
  publicUrl: string;
  user(username: string | null): unknown;
}

export const param = (req: Request, name: string) => String(req.params[name] ?? '');

/**
 * Gitea's user for a githost username; a deleted account is Gitea's ghost user. Each name is
 * mapped once per mapper (one per request): a list's pull requests mostly share their authors,
 * and each mapping hashes the name for its id.
 */
export function userMapper(publicUrl: string) {
  const known = new Map<string | null, unknown>();
  return (username: string | null) => {
    let user = known.get(username);
    if (user === undefined) {
      user = username === null ? { ...giteaUserOf({ username: 'Ghost' }, publicUrl), id: -1 } : giteaUserOf({ username }, publicUrl);
      known.set(username, user);
    }
    return user;
  };
}

/** The scope of a request under `/repos/{owner}/{repo}`; `hasBranch` as repositoryFacts takes it. */
export async function repoScope(req: Request, config: Config, hasBranch?: Promise<boolean>): Promise<RepoScope> {
  const gateway = gatewayFor(req, config);
  const owner = param(req, 'owner');
  const name = param(req, 'repo');
  const facts = await repositoryFacts(gateway, config, owner, name, undefined, hasBranch);
  const repository = giteaRepositoryOf(facts, config.publicUrl);
  return { gateway, owner, name, repoId: facts.repo.id, repository, canWrite: canWrite(facts.permission ?? undefined), publicUrl: config.publicUrl, user: userMapper(config.publicUrl) };
}

/**
 * Who may make a githost write (api-spec §4, docs/decisions/merge-request-lifecycle.md): `write`
 * needs write access (merge, statuses, webhooks); `author-or-write` the merge request's author or
 * a writer (an edit), `anyone` any signed-in caller (create, comment, review).
 */
export type WriteRule = 'write' | { authorOrWrite: () => Promise<boolean> } | 'anyone';

/**
 * githost's refusals of a write, in Gitea's statuses (docs/decisions/gitea-api.md#errors): githost
 * answers a missing write access with a 400, the status of a refused body (api-spec §7), so the
 * two are told apart by the caller's permission and the rule of the call, never by the message:
 * a 400 the caller's permission explains is Gitea's 403, any other 400 its 422.
 */
export async function asGitea(s: RepoScope, rule: WriteRule, err: unknown): Promise<unknown> {
  if (!(err instanceof AppError) || err.details?.status !== 400) return err;
  const refused = !s.canWrite && (rule === 'write' || (typeof rule === 'object' && !(await rule.authorOrWrite().catch(() => false))));
  return refused ? new AppError('forbidden', err.message, { status: 403 }) : new AppError('unprocessable', err.message, { status: 422 });
}

/** Runs a call to githost, its refusals answered in Gitea's statuses. */
export async function giteaCall<T>(s: RepoScope, rule: WriteRule, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw await asGitea(s, rule, err);
  }
}

/** Gitea's `{index}`: a positive integer, else the pull request cannot exist (404). */
export function indexOf(req: Request): number {
  const raw = param(req, 'index');
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : 0;
  if (n < 1) throw new AppError('not_found', 'pull request does not exist');
  return n;
}
