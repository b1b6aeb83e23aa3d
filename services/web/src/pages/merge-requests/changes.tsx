import { AppError } from '@githost/errors';
import { apiPath, type GatewayApi } from '../../clients/api.js';
import type { Comparison, MergeRequestDetail } from '../../clients/mr-types.js';
import type { DiffFile } from '../../clients/types.js';
import { shortSha } from '../../views/components.js';
import { repoPages } from '../paths.js';

/**
 * What the merge request page shows as its changes (docs/decisions/merge-request-page-diff.md):
 * `merge-base`, what merging would bring, from the merge base of the target's tip and the source's
 * head (three dots, as the compare view and GitHub, GitLab and Gitea show it); `tips`, the API's own
 * `diff` (target tip to source tip, docs/api-spec.md §2 "Merge request detail"), only when there
 * is no merge base to show.
 */
export type MrChanges =
  | { base: 'merge-base'; mergeBase: string; head: string; headIsRecorded: boolean; files: DiffFile[]; truncated: boolean }
  | { base: 'tips'; files: DiffFile[]; truncated: boolean };

/**
 * One compare call after the detail, by the two commit ids the detail named (so the page shows one
 * state, and the API may answer it from its cache: two full ids never change). The source's head
 * is its live tip, or, once the branch is gone, the head the merge request last recorded.
 */
export async function mrChangesOf(api: Pick<GatewayApi, 'get'>, owner: string, name: string, mr: MergeRequestDetail): Promise<MrChanges> {
  const tips: MrChanges = { base: 'tips', files: mr.diff, truncated: mr.diff_truncated ?? false };
  const head = mr.source_sha ?? mr.head_sha;
  if (!mr.target_sha || !head) return tips;
  let comparison: Comparison;
  try {
    comparison = await api.get(apiPath('/api/repos/{owner}/{repo}/compare/{basehead}', { owner, repo: name, basehead: `${mr.target_sha}...${head}` }));
  } catch (err) {
    // No common ancestor, or a recorded head no longer in the repository: there is no merge base.
    if (err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation')) return tips;
    throw err;
  }
  return { base: 'merge-base', mergeBase: comparison.merge_base, head: comparison.head_sha, headIsRecorded: mr.source_sha === undefined, files: comparison.diff, truncated: comparison.diff_truncated };
}

/** Says which base the changes below are from, so a reader knows what a removed line means. */
export function ChangesBase({ owner, name, mr, changes }: { owner: string; name: string; mr: MergeRequestDetail; changes: MrChanges }) {
  const target = <code class="branch">{mr.target_branch}</code>;
  const source = <code class="branch">{mr.source_branch}</code>;
  if (changes.base === 'tips') {
    if (!mr.target_sha || !mr.source_sha) return <p class="muted diff-base">No changes to show: the {!mr.target_sha ? target : source} branch is gone.</p>;
    return (
      <p class="diff-base">
        Changes from the tip of {target} to the tip of {source} ({target} and {source} have no common ancestor to compare from).
      </p>
    );
  }
  const sha = (s: string) => (
    <a href={repoPages.commit(owner, name, s)}>
      <code>{shortSha(s)}</code>
    </a>
  );
  const head = changes.headIsRecorded ? (
    <>
      {source}'s last recorded head {sha(changes.head)} (the branch is gone)
    </>
  ) : (
    source
  );
  if (changes.mergeBase === changes.head) {
    return (
      <p class="diff-base">
        No changes left to merge: {target} already has everything of {head}.
      </p>
    );
  }
  return (
    <p class="diff-base">
      Changes from the merge base {sha(changes.mergeBase)} of {target} and {head}: what merging brings. Changes made on {target} since then are not shown.
      {changes.files.length === 0 && ' Together, its commits change no file.'}
    </p>
  );
}
