import { git } from '../git.js';
import { nowMs } from '../stats.js';
import { coldAndWarm, type AxisTable, type Target } from './axis-table.js';
import type { SignedIn } from './signed-in.js';

export const QUIET_GIT = { GIT_TERMINAL_PROMPT: '0' };

/** A page or API answer measured at each size: a warm row held to `target`, a cold row shown. */
export interface Page {
  row: string;
  path: string;
  headers: Record<string, string>;
  target: Target;
}

export async function measurePages(table: AxisTable, step: number, baseUrl: string, pages: Page[], views: number, log: (m: string) => void): Promise<void> {
  for (const p of pages) {
    try {
      const { cold, warm } = await coldAndWarm(baseUrl + p.path, p.headers, views);
      table.record(`${p.row}, warm`, p.target, step, warm);
      table.record(`${p.row}, cold`, 'none', step, cold);
      log(`${p.row}: ${cold.status} cold ${cold.ms.toFixed(1)} ms, warm ${warm.ms.toFixed(1)} ms, ${warm.bytes} B`);
    } catch (err) {
      table.failed(p.row, step, err);
    }
  }
}

export async function timedGit(args: string[], cwd?: string, env?: Record<string, string>): Promise<number> {
  const t = nowMs();
  await git(args, { cwd, env: { ...QUIET_GIT, ...env } });
  return nowMs() - t;
}

/** Opens a merge request of `source` into `target` and times its merge (api spec §4, merge procedure). */
export async function timedMerge(user: SignedIn, repo: string, source: string, target: string): Promise<{ ms: number; strategy: string }> {
  const base = `/api/repos/${user.username}/${repo}/merge-requests`;
  const mr = await user.api.expect<{ number: number }>(201, 'POST', base, { title: `Merge ${source}`, source_branch: source, target_branch: target });
  const t = nowMs();
  const merged = await user.api.expect<{ strategy: string }>(200, 'POST', `${base}/${mr.number}/merge`);
  return { ms: nowMs() - t, strategy: merged.strategy };
}

/** Runs `fn` for each item with at most `width` at once (bulk set-up through the API). */
export async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}
