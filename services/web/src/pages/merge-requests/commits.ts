import { LRUCache } from 'lru-cache';
import { AppError } from '@githost/errors';
import type { ApiPath, GatewayApi } from '../../clients/api.js';
import type { MergeRequestDetail } from '../../clients/mr-types.js';
import type { Commit } from '../../clients/types.js';

// A merge request's commits are a function of its two heads, and the slowest of the page's calls
// after the detail (bench "Web pages"); kept by the heads they were read at.
const kept = new LRUCache<string, { heads: string; commits: Commit[] }>({ max: 2_000 });

/** The merge request's commits beside its detail. */
const commitsOf = (detail: ApiPath<'/api/repos/{owner}/{repo}/merge-requests/{number}'>) => `${detail}/commits` as ApiPath<'/api/repos/{owner}/{repo}/merge-requests/{number}/commits'>;

const headsOf = (mr: MergeRequestDetail) => (mr.source_sha && mr.target_sha ? `${mr.source_sha}...${mr.target_sha}` : undefined);

/**
 * The detail and the commits of a merge request. Once its commits were read at its current two
 * heads they are not asked for again: only the detail is, as the person asking, and the kept list
 * is used only if that call succeeded and names the same heads. Otherwise both are asked for
 * together, and the list is kept only if it ends at the source head the detail names (a push
 * between the two calls keeps nothing).
 *
 * The commits are a function of the detail's two heads (services/merge-requests/src/domain/commits.ts:
 * the source's commits not in the target, at their tips; none when a branch is gone), so they are
 * left out of a kept page's record (`getImplied`, pages/page-cache.ts): a kept view checks the
 * detail, not the list again. A list that may not be the detail's (a push between the two calls, a
 * refusal) makes the page one not to keep.
 */
export async function detailAndCommits(api: GatewayApi, key: string, detail: ApiPath<'/api/repos/{owner}/{repo}/merge-requests/{number}'>): Promise<{ mr: MergeRequestDetail; commits: Commit[]; commitsRefused?: string }> {
  const last = kept.get(key);
  if (last) {
    const mr = await api.get(detail);
    if (headsOf(mr) === last.heads) return { mr, commits: last.commits };
    return { mr, ...remember(api, key, mr, await listed(api, detail)) };
  }
  const [mr, commits] = await Promise.all([api.get(detail), listed(api, detail)]);
  return { mr, ...remember(api, key, mr, commits) };
}

/**
 * The list, or why the API refused it: a history past git-storage's compare budget answers 400
 * "Comparison too big" (docs/decisions/compare.md#budget), and the page still shows the merge
 * request, saying so where the commits would be.
 */
async function listed(api: Pick<GatewayApi, 'getImplied'>, detail: ApiPath<'/api/repos/{owner}/{repo}/merge-requests/{number}'>): Promise<Commit[] | { refused: string }> {
  try {
    return await api.getImplied(commitsOf(detail));
  } catch (err) {
    if (err instanceof AppError && err.kind === 'validation') return { refused: err.message };
    throw err;
  }
}

function remember(api: Pick<GatewayApi, 'notToKeep'>, key: string, mr: MergeRequestDetail, commits: Commit[] | { refused: string }): { commits: Commit[]; commitsRefused?: string } {
  if (!Array.isArray(commits)) {
    api.notToKeep();
    return { commits: [], commitsRefused: commits.refused };
  }
  const heads = headsOf(mr);
  if (heads && commits.some((c) => c.sha === mr.source_sha)) kept.set(key, { heads, commits });
  // Any other list may be another moment's, except an empty one where the detail's heads say
  // there is nothing to list (a branch gone, or both heads one commit: merged fast-forward).
  else if (commits.length > 0 || (heads && mr.source_sha !== mr.target_sha)) api.notToKeep();
  return { commits };
}
