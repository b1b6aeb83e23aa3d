import { AppError } from '@githost/errors';
import { apiPath, type ApiPath, type GatewayApi } from '../clients/api.js';
import type { Branches, Repository, Tag } from '../clients/types.js';
import type { RepoChrome, RepoCounts } from './registry.js';

/** The repository and the tabs' counts, without its lists of branches and tags. */
export interface RepoView {
  repo: Repository;
  /** The tabs' counts. */
  counts: RepoCounts | undefined;
}

const repoPath = (owner: string, name: string) => apiPath('/api/repos/{owner}/{repo}', { owner, repo: name });
const branchesPath = (owner: string, name: string, query = '') => apiPath('/api/repos/{owner}/{repo}/branches', { owner, repo: name }, query);
const tagsPath = (owner: string, name: string, query = '') => apiPath('/api/repos/{owner}/{repo}/tags', { owner, repo: name }, query);
/** The open list, by the very path the answer cache keeps (clients/answer-cache.ts), so a page
 *  that also lists the open merge requests asks once. */
export const openMergeRequestsPath = (owner: string, name: string) => apiPath('/api/repos/{owner}/{repo}/merge-requests', { owner, repo: name }, '?state=open');

/** Open merge requests shown as a count: the list answers at most this many. */
const OPEN_MR_LIST_MAX = 50;

/**
 * The tabs' counts from the lists' X-Total-Count: a page asks each list for one item only
 * (docs/decisions/ref-pages.md), never every branch. Without the branches' or the tags' count
 * there are no counts; without the open merge requests, no count in their tab.
 */
export function countsOf(branches: Settled<number>, tags: Settled<number>, open: Settled<readonly unknown[]>): RepoCounts | undefined {
  if (!branches.ok || !tags.ok) return undefined;
  return {
    branches: branches.value,
    tags: tags.value,
    ...(open.ok && { mergeRequests: open.value.length >= OPEN_MR_LIST_MAX ? `${OPEN_MR_LIST_MAX}+` : String(open.value.length) }),
  };
}

/** How many branches or tags the repository has: one item asked for, the count from its header. */
export async function refCount(api: GatewayApi, owner: string, name: string, kind: 'branches' | 'tags'): Promise<number> {
  const path = kind === 'branches' ? branchesPath(owner, name, '?per_page=1') : tagsPath(owner, name, '?per_page=1');
  const { total } = await api.getCounted(path);
  if (total === undefined) throw new AppError('unavailable', `The API did not count the ${kind}`);
  return total;
}

/**
 * The tabs' counts for a page that does not read the lists itself (merge requests, settings):
 * asked beside the page's own calls. The repository's record and the open list come from the
 * answer cache when a page was just read; a list that cannot be read only drops its count.
 */
export async function loadCounts(api: GatewayApi, owner: string, name: string): Promise<RepoCounts | undefined> {
  const [branches, tags, open] = await Promise.all([settle(refCount(api, owner, name, 'branches')), settle(refCount(api, owner, name, 'tags')), settle(api.get(openMergeRequestsPath(owner, name)))]);
  return countsOf(branches, tags, open);
}

/** The repository and its tabs' counts, without its lists of branches and tags. */
export async function loadRepoCounted(api: GatewayApi, owner: string, name: string): Promise<RepoView> {
  const [repo, counts] = await Promise.all([api.get(repoPath(owner, name)), loadCounts(api, owner, name)]);
  return { repo, counts };
}

/** The API's `q`, `per_page` and `page` of a ref list (`q` cut to what the API takes). */
export function refListQuery(q: string, pageNo: number, perPage: number): string {
  return `?${new URLSearchParams({ ...(q ? { q: q.slice(0, 100) } : {}), per_page: String(perPage), page: String(pageNo) }).toString()}`;
}

/** One page of the branches or tags whose names hold `q`, and how many match. */
export async function refListPage<K extends 'branches' | 'tags'>(api: GatewayApi, owner: string, name: string, kind: K, q: string, pageNo: number, perPage: number) {
  const query = refListQuery(q, pageNo, perPage);
  if (kind === 'branches') {
    const { value, total } = await api.getCounted(branchesPath(owner, name, query));
    return { branches: value.branches, tags: [] as Tag[], total: total ?? value.branches.length };
  }
  const { value, total } = await api.getCounted(tagsPath(owner, name, query));
  return { branches: [] as Branches['branches'], tags: value.tags, total: total ?? value.tags.length };
}

/** Branches a select offers at most: the ref switcher's page (docs/decisions/ref-pages.md#choosing-a-branch). */
export const BRANCH_CHOICES_MAX = 30;

export interface BranchChoices {
  names: string[];
  /** How many of `names` the API listed (the chosen one may be added), and how many match in all. */
  listed: number;
  total: number;
}

/** What a branch select offers: the first BRANCH_CHOICES_MAX branches holding `q` (found by the
 *  API), the chosen one first when the page does not hold it, and how many match in all. */
export async function branchChoices(api: GatewayApi, owner: string, name: string, q: string, chosen: string): Promise<BranchChoices> {
  const { branches, total } = await refListPage(api, owner, name, 'branches', q, 1, BRANCH_CHOICES_MAX);
  const names = branches.map((b) => b.name);
  return { names: chosen && !names.includes(chosen) ? [chosen, ...names] : names, listed: names.length, total };
}

/** Pages of the name filter read to find one branch; past them a name is taken for no branch. */
const BRANCH_LOOKUP_PAGES = 10;

/** Whether `branch` names a branch: the API's filter by that very name, paged until it is found. */
export async function branchExists(api: GatewayApi, owner: string, name: string, branch: string): Promise<boolean> {
  if (!branch) return false;
  for (let pageNo = 1; pageNo <= BRANCH_LOOKUP_PAGES; pageNo++) {
    const { branches, total } = await refListPage(api, owner, name, 'branches', branch, pageNo, 100);
    if (branches.some((b) => b.name === branch)) return true;
    if (pageNo * 100 >= total) return false;
  }
  return false;
}

/** The chrome above a repository page: its name, the active tab, the counts when known. */
export function chromeOf(repo: Repository, tab: RepoChrome['tab'], counts: RepoCounts | undefined, ref?: string): RepoChrome {
  return { owner: repo.owner, name: repo.name, private: repo.private, tab, ...(counts && { counts }), ...(ref !== undefined && { ref }) };
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
