import { AppError } from '@githost/errors';
import { encodePath, repoApiPath, type GatewayApi } from '../clients/api.js';
import type { Branches, Repository, Tag } from '../clients/types.js';

/** The repository, its branches and tags: what the chrome and the ref switcher need. */
export interface RepoView {
  repo: Repository;
  branches: Branches;
  tags: Tag[];
}

export async function loadRepo(api: GatewayApi, owner: string, name: string): Promise<RepoView> {
  // Together: each answers 404 alike for a repository the caller may not see.
  const [repo, branches, tags] = await Promise.all([
    api.get<Repository>(repoApiPath(owner, name)),
    api.get<Branches>(repoApiPath(owner, name, '/branches')),
    api.get<{ tags: Tag[] }>(repoApiPath(owner, name, '/tags')),
  ]);
  return { repo, branches, tags: tags.tags };
}

/** A browse path for the API: `tree/` or `blob/` + the ref and path as the page got them. */
export function browseApiPath(owner: string, name: string, kind: 'tree' | 'blob' | 'raw' | 'commits', refAndPath: string, query = ''): string {
  return repoApiPath(owner, name, `/${kind}/${encodePath(refAndPath)}${query}`);
}

/** Whether an API error is the given refusal (e.g. `Not a directory: ...`). */
export function isApiError(err: unknown, kind: AppError['kind'], prefix: string): boolean {
  return err instanceof AppError && err.kind === kind && err.message.startsWith(prefix);
}

/** A call's outcome as a value, so it can run beside others and be judged after them. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
export function settle<T>(work: Promise<T>): Promise<Settled<T>> {
  return work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}
