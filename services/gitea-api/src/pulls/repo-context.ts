import type { Request } from 'express';
import { AppError } from '@githost/errors';
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
  publicUrl: string;
  user(username: string | null): unknown;
}

export const param = (req: Request, name: string) => String(req.params[name] ?? '');

/** Gitea's user for a githost username; a deleted account is Gitea's ghost user. */
export function userMapper(publicUrl: string) {
  return (username: string | null) => (username === null ? { ...giteaUserOf({ username: 'Ghost' }, publicUrl), id: -1 } : giteaUserOf({ username }, publicUrl));
}

export async function repoScope(req: Request, config: Config): Promise<RepoScope> {
  const gateway = gatewayFor(req, config);
  const owner = param(req, 'owner');
  const name = param(req, 'repo');
  const facts = await repositoryFacts(gateway, config, owner, name);
  const repository = giteaRepositoryOf(facts, config.publicUrl);
  return { gateway, owner, name, repoId: facts.repo.id, repository, publicUrl: config.publicUrl, user: userMapper(config.publicUrl) };
}

/** githost's refusals of a write, in Gitea's statuses: no write access is 403, a refused body 422. */
const NO_WRITE = new Set(['You do not have write access to this repository', 'Write access required', 'Only the author or users with write access can change this merge request']);

export function asGitea(err: unknown): unknown {
  if (!(err instanceof AppError)) return err;
  if (NO_WRITE.has(err.message)) return new AppError('forbidden', err.message, { status: 403 });
  if (err.details?.status === 400) return new AppError('unprocessable', err.message, { status: 422 });
  return err;
}

/** Runs a call to githost, its refusals answered in Gitea's statuses. */
export async function giteaCall<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw asGitea(err);
  }
}

/** Gitea's `{index}`: a positive integer, else the pull request cannot exist (404). */
export function indexOf(req: Request): number {
  const raw = param(req, 'index');
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : 0;
  if (n < 1) throw new AppError('not_found', 'pull request does not exist');
  return n;
}
