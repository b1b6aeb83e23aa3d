import { runGit, type GitResult } from './command.js';
import { NotFoundError } from './errors.js';

export interface Comparison {
  /** Best common ancestor; '' when the histories are unrelated. */
  mergeBase: string;
  aheadBy: number;
  behindBy: number;
  /** The first `maxCommits` commits of head not in base, oldest first. */
  commitOids: string[];
}

/**
 * A three-dot compare of two commit ids (already validated): `merge-base`,
 * `rev-list --left-right --count base...head` for the two counts (left = base only, right = head
 * only) and `rev-list --reverse ^base head` for head's own commits. `--max-count` applies before
 * `--reverse` in git, so the oldest-first page is cut from the full reversed list instead.
 */
export async function compareCommits(gitDir: string, base: string, head: string, maxCommits: number, signal?: AbortSignal): Promise<Comparison> {
  // Three independent walks, run side by side: the answer waits for the slowest, not their sum.
  const settled = await Promise.allSettled([
    // Exit 1 with no output: unrelated histories.
    runGit({ name: 'merge-base', args: [base, head] }, { gitDir, okExitCodes: [1], signal }),
    runGit({ name: 'rev-list', flags: ['--left-right', '--count'], args: [`${base}...${head}`] }, { gitDir, timeoutMs: 60_000, signal }),
    runGit({ name: 'rev-list', flags: ['--reverse'], args: [head, `^${base}`] }, { gitDir, timeoutMs: 60_000, signal }),
  ]);
  const failures = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  // A missing or non-commit id fails each walk in its own words; merge-base's is the one classified.
  if (failures.length > 0) throw failures.find((e) => e instanceof NotFoundError) ?? failures[0];
  const [mb, counts, list] = settled.map((r) => (r as PromiseFulfilledResult<GitResult>).value) as [GitResult, GitResult, GitResult];
  const [behind, ahead] = counts.stdout.toString('utf8').trim().split(/\s+/).map(Number);
  const commitOids = list.stdout.toString('latin1').split('\n').filter(Boolean).slice(0, maxCommits);
  return { mergeBase: mb.stdout.toString('utf8').trim(), aheadBy: ahead ?? 0, behindBy: behind ?? 0, commitOids };
}
