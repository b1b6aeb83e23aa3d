import type { Response } from 'express';
import { unauthenticated } from '@githost/errors';
import { identityOf } from '@githost/http';
import type { RepoAccess } from '../domain/repositories.js';
import type { Caller } from '../domain/types.js';

/** The signed principal as a domain caller; null when anonymous. */
export function optionalCallerOf(res: Response): Caller | null {
  const principal = identityOf(res).principal;
  if (!principal) return null;
  return { user_id: principal.user_id, username: principal.username, is_admin: principal.is_admin };
}

/** Required-auth routes (docs/architecture.md#request-flow-and-identity, the route table): no principal is 401 `Authentication required`. */
export function callerOf(res: Response): Caller {
  const caller = optionalCallerOf(res);
  if (!caller) throw unauthenticated();
  return caller;
}

/** The repository the gateway resolved from the path, with the caller's permission on it. */
export function repoAccessOf(res: Response): RepoAccess | null {
  const repo = identityOf(res).repo;
  return repo ? { id: repo.id, permission: repo.permission } : null;
}

/** The sign-in session whose secret authenticated the request; undefined for tokens. */
export function sessionIdOf(res: Response): string | undefined {
  return identityOf(res).principal?.session_id || undefined;
}

/** The client's address and user agent as the gateway signed them (docs/security.md#internal-calls). */
export function clientOf(res: Response): { address: string | null; user_agent: string | null } {
  const client = identityOf(res).client;
  return { address: client?.address ?? null, user_agent: client?.user_agent ?? null };
}
