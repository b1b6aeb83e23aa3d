import { AppError, forbidden, notFound, unauthenticated } from '@githost/errors';
import { repositoryRefusal, WRITE_REFUSED, type Principal, type RepoContext } from '@githost/identity';
import type { RouteMatch } from './routes.js';

/** A refusal at the edge; `challenge` asks for `WWW-Authenticate`, since git sends credentials
 *  only after a 401 that carries it. */
export interface Denial {
  error: AppError;
  challenge: boolean;
}

const deny = (error: AppError, challenge = false): Denial => ({ error, challenge });

/** CONTRACT §3: a route that requires a credential, reached without one. Checked before the
 *  repository is looked up. Git transport: any anonymous push gets the credential prompt. */
export function denyAnonymous(route: RouteMatch, principal: Principal | null): Denial | undefined {
  if (principal !== null) return undefined;
  if (route.auth === 'required') return deny(unauthenticated(), route.surface === 'git');
  if (route.surface === 'git' && route.push) return deny(unauthenticated(), true);
  return undefined;
}

/**
 * CONTRACT §3 and §9 "Access": a repository that does not exist and a private one the caller
 * cannot read look the same (404), except to an anonymous git client, which gets the credential
 * prompt in both cases so the answer leaks nothing and git can retry with credentials.
 * `repo` is null when accounts knows no such repository.
 */
export function denyRepository(route: RouteMatch, principal: Principal | null, repo: RepoContext | null): Denial | undefined {
  // The rule itself is shared with the SSH server (packages/identity repositoryRefusal).
  const refusal = repositoryRefusal(repo, route.surface === 'git' && route.push ? 'write' : 'read', principal === null);
  if (refusal === 'not_found') {
    if (route.surface === 'git' && principal === null) return deny(unauthenticated(), true);
    // seed §4 browsing rule 1: browse endpoints say `Not found`.
    return deny(notFound(route.surface === 'browse' ? 'Not found' : 'Repository not found'));
  }
  if (refusal === 'sign_in') return deny(unauthenticated(), true);
  if (refusal === 'read_only') return deny(forbidden(WRITE_REFUSED));
  return undefined;
}
