import { runGit } from './command.js';
import { GitCancelledError, GitError, GitOutputTooBigError, GitTimeoutError } from './errors.js';

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
/** One boundary line of `rev-list --boundary`: `-`, an object id and its newline. */
const BOUNDARY_LINE_BYTES = 42;
/** Lines past the budget the listing may hold for its boundary before it counts as too big. */
const BOUNDARY_ROOM = 1024;

/**
 * A three-dot compare of two commit ids (already validated) in one walk of head's side where git
 * allows it (docs/decisions/compare.md#walks): `rev-list --boundary head ^base` lists head's own
 * commits newest first (their number is ahead; the last `maxCommits` of them reversed are the
 * oldest-first page), then the boundary: base's commits that are parents of head's own. Every
 * merge base is on that boundary, so the merge base is known without `merge-base` when base is on
 * it (base is an ancestor of head: behind is 0), when it holds one commit (that one), when it is
 * empty (unrelated histories), or when head has no commits of its own (head is the merge base).
 * Only two or more boundary commits without base (a criss-cross, a side branch forked before the
 * merge base) ask `merge-base --all`. Behind is `rev-list --count base ^<merge bases>`, which walks
 * only base's own commits: the left side of `rev-list --left-right --count base...head` without
 * that symmetric walk. git can only walk from a commit to its parents, so the oldest-first page
 * costs the whole of head's side: the budget bounds it.
 */
export async function compareCommits(gitDir: string, base: string, head: string, maxCommits: number, budget: CompareBudget = COMPARE_BUDGET_DEFAULTS, signal?: AbortSignal): Promise<Comparison> {
  const deadline = Date.now() + budget.timeoutMs;
  // At least 1 ms: 0 would mean no deadline at all to runGit.
  const remaining = () => Math.max(1, deadline - Date.now());
  return withinBudget(budget, async () => {
    // `^{commit}`: an id that is not a commit fails as a bad revision (NotFoundError), not as an empty walk.
    const list = await runGit(
      { name: 'rev-list', flags: ['--boundary'], args: [`${head}^{commit}`, `^${base}^{commit}`] },
      { gitDir, timeoutMs: remaining(), maxStdoutBytes: (budget.maxWalkCommits + BOUNDARY_ROOM) * BOUNDARY_LINE_BYTES, signal },
    );
    const { count, oldest, boundary } = readHeadSide(list.stdout, maxCommits);
    if (count > budget.maxWalkCommits) throw tooManyCommits(budget);
    const mergeBases = await mergeBasesOf(gitDir, base, head, count, boundary, remaining, signal);
    const behindBy = mergeBases.length === 1 && mergeBases[0] === base ? 0 : await countOwn(gitDir, base, mergeBases, budget, remaining, signal);
    return { mergeBase: mergeBases[0] ?? '', aheadBy: count, behindBy, commitOids: oldest };
  });
}

/** Every merge base of base and head, the one `git merge-base` prints first; none for unrelated histories. */
async function mergeBasesOf(gitDir: string, base: string, head: string, aheadBy: number, boundary: string[], remaining: () => number, signal?: AbortSignal): Promise<string[]> {
  if (aheadBy === 0) return [head];
  if (boundary.includes(base)) return [base];
  if (boundary.length <= 1) return boundary;
  // Exit 1 with no output: unrelated histories.
  const mb = await runGit({ name: 'merge-base', flags: ['--all'], args: [base, head] }, { gitDir, okExitCodes: [1], timeoutMs: remaining(), signal });
  return mb.stdout.toString('latin1').split('\n').filter(Boolean);
}

/** base's own commits (not reachable from any merge base), counted up to one past the budget. */
async function countOwn(gitDir: string, base: string, mergeBases: string[], budget: CompareBudget, remaining: () => number, signal?: AbortSignal): Promise<number> {
  const behind = await runGit(
    { name: 'rev-list', flags: ['--count', `--max-count=${budget.maxWalkCommits + 1}`], args: [base, ...mergeBases.map((oid) => `^${oid}`)] },
    { gitDir, timeoutMs: remaining(), signal },
  );
  const n = Number(behind.stdout.toString('utf8').trim());
  if (n > budget.maxWalkCommits) throw tooManyCommits(budget);
  return n;
}

/**
 * `rev-list --boundary` output read without splitting the whole: head's own commits (41 bytes a
 * line, newest first), then boundary commits (42 bytes, `-` first). The count, the last `n` own
 * commits reversed (oldest first), and the boundary.
 */
export function readHeadSide(out: Buffer, n: number): { count: number; oldest: string[]; boundary: string[] } {
  const boundary: string[] = [];
  let end = out.length;
  // Own lines hold only hex and newlines, so a `-` 42 bytes from the end starts a boundary line.
  while (end >= BOUNDARY_LINE_BYTES && out[end - BOUNDARY_LINE_BYTES] === 0x2d) {
    boundary.push(out.toString('latin1', end - BOUNDARY_LINE_BYTES + 1, end - 1));
    end -= BOUNDARY_LINE_BYTES;
  }
  const count = end / OID_LINE_BYTES;
  const oldest: string[] = [];
  for (let i = count - 1; i >= Math.max(0, count - n); i--) oldest.push(out.toString('latin1', i * OID_LINE_BYTES, (i + 1) * OID_LINE_BYTES - 1));
  return { count, oldest, boundary: boundary.reverse() };
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
