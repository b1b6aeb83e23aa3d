import { AppError } from '@githost/errors';
import { apiPath, type ApiPath, type GatewayApi } from '../clients/api.js';
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
    api.get(apiPath('/api/repos/{owner}/{repo}', { owner, repo: name })),
    api.get(apiPath('/api/repos/{owner}/{repo}/branches', { owner, repo: name })),
    api.get(apiPath('/api/repos/{owner}/{repo}/tags', { owner, repo: name })),
  ]);
  return { repo, branches, tags: tags.tags };
}

/** A browse path for the API: `tree/` or `blob/` + the ref and path as the page got them. */
const BROWSE = {
  tree: '/api/repos/{owner}/{repo}/tree/{ref_and_path}',
  blob: '/api/repos/{owner}/{repo}/blob/{ref_and_path}',
  raw: '/api/repos/{owner}/{repo}/raw/{ref_and_path}',
  commits: '/api/repos/{owner}/{repo}/commits/{ref}',
} as const;

export function browseApiPath<K extends keyof typeof BROWSE>(owner: string, name: string, kind: K, refAndPath: string, query = ''): ApiPath<(typeof BROWSE)[K]> {
  // `ref` or `ref_and_path`, whichever the template names: either keeps its slashes.
  const params = { owner, repo: name, ref: refAndPath, ref_and_path: refAndPath };
  const template: (typeof BROWSE)[keyof typeof BROWSE] = BROWSE[kind];
  return apiPath(template, params, query) as ApiPath<(typeof BROWSE)[K]>;
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
