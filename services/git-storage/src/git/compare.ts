import { runGit, type GitResult } from './command.js';
import { GitCancelledError, GitError, GitOutputTooBigError, GitTimeoutError, NotFoundError } from './errors.js';

export interface Comparison {
  /** Best common ancestor; '' when the histories are unrelated. */
  mergeBase: string;
  aheadBy: number;
  behindBy: number;
  /** The first `maxCommits` commits of head not in base, oldest first. */
  commitOids: string[];
}

/**
 * What one compare may cost (docs/decisions/compare.md#budget): the commits either side's walk may
 * list, and the time all of its walks together may take. Past either, the comparison is refused as
 * too big rather than left to the caller's deadline.
 */
export interface CompareBudget {
  maxWalkCommits: number;
  timeoutMs: number;
}

export const COMPARE_BUDGET_DEFAULTS: CompareBudget = { maxWalkCommits: 1_000_000, timeoutMs: 20_000 };

/** The comparison spans more history than its budget allows. */
export class ComparisonTooBigError extends GitError {
  override name = 'ComparisonTooBigError';
}

/** One line of `rev-list` output: an object id and its newline. */
const OID_LINE_BYTES = 41;

/**
 * A three-dot compare of two commit ids (already validated), each part of the history walked once
 * (docs/decisions/compare.md#walks): `merge-base --all` (its first line is what `git merge-base`
 * prints) beside `rev-list head ^base` (head's own commits, newest first: their number is ahead,
 * and the last `maxCommits` of them reversed are the oldest-first page), then `rev-list --count
 * base ^<merge bases>` for behind, which walks only base's own commits. A commit reachable from
 * both sides is an ancestor of a merge base, so that count is the left side of `rev-list
 * --left-right --count base...head`, without that symmetric walk. git can only walk from a commit
 * to its parents, so the oldest-first page costs the whole of head's side: the budget bounds it.
 */
export async function compareCommits(gitDir: string, base: string, head: string, maxCommits: number, budget: CompareBudget = COMPARE_BUDGET_DEFAULTS, signal?: AbortSignal): Promise<Comparison> {
  const deadline = Date.now() + budget.timeoutMs;
  // At least 1 ms: 0 would mean no deadline at all to runGit.
  const remaining = () => Math.max(1, deadline - Date.now());
  const maxStdoutBytes = budget.maxWalkCommits * OID_LINE_BYTES;
  return withinBudget(budget, async () => {
    const [mb, list] = await bothOrFailure([
      // Exit 1 with no output: unrelated histories (no merge base; base's side counts whole).
      runGit({ name: 'merge-base', flags: ['--all'], args: [base, head] }, { gitDir, okExitCodes: [1], timeoutMs: remaining(), signal }),
      runGit({ name: 'rev-list', args: [head, `^${base}`] }, { gitDir, timeoutMs: remaining(), maxStdoutBytes, signal }),
    ]);
    const mergeBases = mb.stdout.toString('latin1').split('\n').filter(Boolean);
    const behind = await runGit(
      { name: 'rev-list', flags: ['--count', `--max-count=${budget.maxWalkCommits + 1}`], args: [base, ...mergeBases.map((oid) => `^${oid}`)] },
      { gitDir, timeoutMs: remaining(), signal },
    );
    const behindBy = Number(behind.stdout.toString('utf8').trim());
    if (behindBy > budget.maxWalkCommits) throw tooManyCommits(budget);
    const { count, oldest } = oldestLines(list.stdout, maxCommits);
    return { mergeBase: mergeBases[0] ?? '', aheadBy: count, behindBy, commitOids: oldest };
  });
}

/** The number of lines of newest-first `rev-list` output, and its last `n` reversed (oldest first), read without splitting the whole. */
function oldestLines(out: Buffer, n: number): { count: number; oldest: string[] } {
  const count = out.length / OID_LINE_BYTES;
  const from = Math.max(0, count - n);
  const oldest: string[] = [];
  for (let i = count - 1; i >= from; i--) oldest.push(out.toString('latin1', i * OID_LINE_BYTES, i * OID_LINE_BYTES + OID_LINE_BYTES - 1));
  return { count, oldest };
}

/** The walks' own deadline and size cap read as the comparison being too big; a caller who went away stays a cancellation. */
export async function withinBudget<T>(budget: CompareBudget, walk: () => Promise<T>): Promise<T> {
  try {
    return await walk();
  } catch (err) {
    if (err instanceof GitCancelledError) throw err;
    if (err instanceof GitOutputTooBigError) throw tooManyCommits(budget);
    if (err instanceof GitTimeoutError) {
      throw new ComparisonTooBigError(`Comparison too big: it could not be walked within ${budget.timeoutMs / 1000} s; compare commits closer together, or run git log on a clone`);
    }
    throw err;
  }
}

function tooManyCommits(budget: CompareBudget): ComparisonTooBigError {
  return new ComparisonTooBigError(`Comparison too big: more than ${budget.maxWalkCommits.toLocaleString('en-US')} commits on one side; compare commits closer together, or run git log on a clone`);
}

/** Both results; a missing or non-commit id fails each walk in its own words, and a NotFoundError is the one classified. */
async function bothOrFailure(runs: [Promise<GitResult>, Promise<GitResult>]): Promise<[GitResult, GitResult]> {
  const settled = await Promise.allSettled(runs);
  const failures = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length > 0) throw failures.find((e) => e instanceof NotFoundError) ?? failures.find((e) => !(e instanceof GitCancelledError) && e instanceof GitTimeoutError) ?? failures[0];
  return settled.map((r) => (r as PromiseFulfilledResult<GitResult>).value) as [GitResult, GitResult];
}
