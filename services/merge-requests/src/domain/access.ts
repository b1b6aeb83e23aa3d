import { notFound, unauthenticated, validation } from '@githost/errors';
import { canWrite, isRepoVisible } from '@githost/identity';
import type { Caller, RepoRef } from './types.js';

/** CONTRACT §3: a private repository the caller cannot read looks like no repository at all. */
export function requireVisible(repo: RepoRef | null): RepoRef {
  if (!isRepoVisible(repo)) throw notFound('Repository not found');
  return repo;
}

/** seed §5 "Required" mode (the gateway checks too; a service never trusts the route alone). */
export function requireCaller(caller: Caller | null): Caller {
  if (!caller) throw unauthenticated();
  return caller;
}

/** seed §4 merge procedure step 1; seed §5: reported as a validation error. */
export function requireWrite(repo: RepoRef): void {
  if (!canWrite(repo.permission)) throw validation('You do not have write access to this repository');
}
