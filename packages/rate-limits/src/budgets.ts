import { createHash } from 'node:crypto';

/** Every budget counts in fixed one-minute windows, each starting at a key's first request. */
export const WINDOW_MS = 60_000;

/**
 * The budgets, by the name their counters are kept under (after GITHOST_RATE_LIMIT_PREFIX). The
 * gateway's git budget and the SSH service's are the same name with the same keys
 * (`gitBudgetKey`), so they are one budget (docs/decisions/shared-rate-limits.md#one-git-budget).
 */
export const BUDGETS = {
  /** REST API requests per token (GITHOST_RATE_LIMIT_PER_MINUTE). */
  apiToken: 'api-token',
  /** REST API requests per anonymous address (GITHOST_RATE_LIMIT_ANON_PER_MINUTE). */
  apiAnonymous: 'api-anonymous',
  /** git requests per user, deploy key or account-less token, over HTTP and SSH alike (GITHOST_GIT_RATE_LIMIT_PER_MINUTE). */
  git: 'git',
  /** git requests per address without a valid credential (GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE). */
  gitAnonymous: 'git-anonymous',
  /** LFS object transfers (an upload, download or verify carrying a batch's grant) per user, apart
   *  from the git budget (GITHOST_LFS_RATE_LIMIT_PER_MINUTE; docs/decisions/shared-rate-limits.md#lfs-object-transfers). */
  lfs: 'lfs',
} as const;

export type BudgetName = (typeof BUDGETS)[keyof typeof BUDGETS];

/** Whom a git request is counted against. */
export type GitCaller = { userId: string } | { deployKeyId: string } | { token: string };

/**
 * The one key of a git budget (and of the LFS one, under its own name): a user's whichever token, SSH key or LFS grant they use and
 * whichever transport; a deploy key's (SSH only); a token with no user behind it (the
 * GITHOST_ADMIN_TOKEN principal) by its hash.
 */
export function gitBudgetKey(caller: GitCaller): string {
  if ('userId' in caller) return `user:${caller.userId}`;
  if ('deployKeyId' in caller) return `deploy-key:${caller.deployKeyId}`;
  return tokenKey(caller.token);
}

/** A token counted by its hash, so no store ever holds a usable secret. */
export function tokenKey(token: string): string {
  return `token:${createHash('sha256').update(token).digest('hex')}`;
}
