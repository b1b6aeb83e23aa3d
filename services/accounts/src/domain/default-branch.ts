import { branchNameProblem } from './names.js';

/** Preferred, in this order, when a first push brings several branches but not the default. */
const USUAL_DEFAULTS = ['main', 'master'];

/**
 * services/accounts/README.md#default-branch: the default branch after a push created `pushed` (in the
 * push's order) in a repository that had no branch. The configured one stays when the push
 * brought it; otherwise `main`, else `master`, else the first pushed branch, as Gitea does
 * (docs/decisions/first-push-default-branch.md). Names that could not be a default branch are
 * passed over; with none left, the configured one stays.
 */
export function defaultBranchAfterFirstPush(configured: string, pushed: readonly string[]): string {
  const candidates = pushed.filter((name) => branchNameProblem(name) === null);
  if (candidates.length === 0 || candidates.includes(configured)) return configured;
  return USUAL_DEFAULTS.find((name) => candidates.includes(name)) ?? candidates[0]!;
}
