import { requireVisible } from './access.js';
import type { Deps } from './merge-requests.js';
import type { CommitRecord, RepoRef } from './types.js';
import { isValidBranchName, mrNotFound, parseNumber } from './validate.js';

/** GitHub's limit for a pull request's commit list. */
export const COMMITS_LIMIT = 250;

/**
 * The commits of the source not in the target, oldest first, at most 250 (docs/decisions/merge-request-page-diff.md:
 * current tips, like the detail's diff; a missing branch gives an empty list, as the detail
 * gives an empty diff).
 */
export async function listMergeRequestCommits(deps: Deps, repo: RepoRef | null, rawNumber: string): Promise<CommitRecord[]> {
  const r = requireVisible(repo);
  const mr = await deps.store.findByNumber(r.id, parseNumber(rawNumber));
  if (!mr) throw mrNotFound(rawNumber);
  const tip = (branch: string) => (isValidBranchName(branch) ? deps.git.resolveBranch(r.id, branch) : Promise.resolve(null));
  const [source, target] = await Promise.all([tip(mr.source_branch), tip(mr.target_branch)]);
  if (!source || !target) return [];
  return (await deps.git.compare(r.id, target, source, COMMITS_LIMIT)).commits;
}
