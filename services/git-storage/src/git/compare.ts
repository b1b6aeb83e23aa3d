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
 * A three-dot compare of two commit ids (already validated), each part of the history walked once
 * (docs/decisions/compare.md#walks): `merge-base --all` (its first line is what `git merge-base`
 * prints) beside `rev-list --reverse head ^base` (head's own commits: their number is ahead), then
 * `rev-list --count base ^<merge bases>` for behind, which walks only base's own commits. A commit
 * reachable from both sides is an ancestor of a merge base, so that count is the left side of
 * `rev-list --left-right --count base...head`, without that symmetric walk, which computes the
 * merge bases again and walks head's side a second time. `--max-count` applies before `--reverse`
 * in git, so the oldest-first page is cut from the full reversed list instead.
 */
export async function compareCommits(gitDir: string, base: string, head: string, maxCommits: number, signal?: AbortSignal): Promise<Comparison> {
  const [mb, list] = await bothOrFailure([
    // Exit 1 with no output: unrelated histories (no merge base; base's side counts whole).
    runGit({ name: 'merge-base', flags: ['--all'], args: [base, head] }, { gitDir, okExitCodes: [1], timeoutMs: 60_000, signal }),
    runGit({ name: 'rev-list', flags: ['--reverse'], args: [head, `^${base}`] }, { gitDir, timeoutMs: 60_000, signal }),
  ]);
  const mergeBases = mb.stdout.toString('latin1').split('\n').filter(Boolean);
  const behind = await runGit({ name: 'rev-list', flags: ['--count'], args: [base, ...mergeBases.map((oid) => `^${oid}`)] }, { gitDir, timeoutMs: 60_000, signal });
  const headOnly = list.stdout.toString('latin1').split('\n').filter(Boolean);
  return { mergeBase: mergeBases[0] ?? '', aheadBy: headOnly.length, behindBy: Number(behind.stdout.toString('utf8').trim()), commitOids: headOnly.slice(0, maxCommits) };
}

/** Both results; a missing or non-commit id fails each walk in its own words, and a NotFoundError is the one classified. */
async function bothOrFailure(runs: [Promise<GitResult>, Promise<GitResult>]): Promise<[GitResult, GitResult]> {
  const settled = await Promise.allSettled(runs);
  const failures = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length > 0) throw failures.find((e) => e instanceof NotFoundError) ?? failures[0];
  return settled.map((r) => (r as PromiseFulfilledResult<GitResult>).value) as [GitResult, GitResult];
}
