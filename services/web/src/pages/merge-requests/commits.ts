import { LRUCache } from 'lru-cache';
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
 */
export async function detailAndCommits(api: GatewayApi, key: string, detail: ApiPath<'/api/repos/{owner}/{repo}/merge-requests/{number}'>): Promise<{ mr: MergeRequestDetail; commits: Commit[] }> {
  const last = kept.get(key);
  if (last) {
    const mr = await api.get(detail);
    if (headsOf(mr) === last.heads) return { mr, commits: last.commits };
    return { mr, commits: remember(key, mr, await api.get(commitsOf(detail))) };
  }
  const [mr, commits] = await Promise.all([api.get(detail), api.get(commitsOf(detail))]);
  return { mr, commits: remember(key, mr, commits) };
}

function remember(key: string, mr: MergeRequestDetail, commits: Commit[]): Commit[] {
  const heads = headsOf(mr);
  if (heads && commits.some((c) => c.sha === mr.source_sha)) kept.set(key, { heads, commits });
  return commits;
}
