import { createHash } from 'node:crypto';

/**
 * The integer ids Gitea's JSON carries (repositories, users, pull requests, reviews, statuses,
 * webhooks, comments),
 * for objects whose githost ids are uuids or names. Each is derived, not stored: the first 48 bits
 * of SHA-256 over the object's kind and its stable githost key, plus one (never 0, always a safe
 * JavaScript integer). The same object gets the same id in every process and every release, so
 * the Gitea-compatible API (services/gitea-api) and webhooks agree without a table
 * (docs/decisions/webhook-formats.md#integer-ids, docs/decisions/gitea-api.md#integer-ids).
 * Keys: repository -> its uuid; user -> username; pull request -> `<repo uuid>#<number>`;
 * review -> its uuid; status -> `<repo uuid>:<sha>:<context>:<created_at>`; hook -> its uuid;
 * comment -> its uuid.
 */
export type GiteaObjectKind = 'repository' | 'user' | 'pull_request' | 'review' | 'status' | 'hook' | 'comment';

const MAX_48 = 2 ** 48 - 1;

export function giteaIdOf(kind: GiteaObjectKind, key: string): number {
  const digest = createHash('sha256').update(`${kind}\n${key}`).digest();
  return (digest.readUIntBE(0, 6) % MAX_48) + 1;
}

export const repositoryKey = (repoId: string) => repoId;
export const pullRequestKey = (repoId: string, number: number) => `${repoId}#${number}`;
export const statusKey = (repoId: string, sha: string, context: string, createdAt: string) => `${repoId}:${sha}:${context}:${createdAt}`;
