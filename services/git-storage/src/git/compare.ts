import { runGit } from './command.js';

export interface Comparison {
  /** Best common ancestor; '' when the histories are unrelated. */
  mergeBase: string;
  aheadBy: number;
  behindBy: number;
  /** The first `maxCommits` commits of head not in base, oldest first. */
  commitOids: string[];
}

/**
 * A three-dot compare of two commit ids (already validated): `merge-base`, then
 * `rev-list --left-right --count base...head` for the two counts (left = base only, right = head
 * only), then `rev-list --reverse ^base head` for head's own commits. `--max-count` applies before
 * `--reverse` in git, so the oldest-first page is cut from the full reversed list instead.
 */
export async function compareCommits(gitDir: string, base: string, head: string, maxCommits: number, signal?: AbortSignal): Promise<Comparison> {
  // Exit 1 with no output: unrelated histories.
  const mb = await runGit({ name: 'merge-base', args: [base, head] }, { gitDir, okExitCodes: [1], signal });
  const mergeBase = mb.stdout.toString('utf8').trim();
  const counts = await runGit({ name: 'rev-list', flags: ['--left-right', '--count'], args: [`${base}...${head}`] }, { gitDir, timeoutMs: 60_000, signal });
  const [behind, ahead] = counts.stdout.toString('utf8').trim().split(/\s+/).map(Number);
  let commitOids: string[] = [];
  if (ahead! > 0) {
    const list = await runGit({ name: 'rev-list', flags: ['--reverse'], args: [head, `^${base}`] }, { gitDir, timeoutMs: 60_000, signal });
    commitOids = list.stdout.toString('latin1').split('\n').filter(Boolean).slice(0, maxCommits);
  }
  return { mergeBase, aheadBy: ahead ?? 0, behindBy: behind ?? 0, commitOids };
}
