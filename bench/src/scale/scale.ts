import type { BenchContext } from '../context.js';
import type { Section, Table } from '../report.js';
import type { AxisTable } from './axis-table.js';
import { describeLadder, scaleLadder, type Ladder } from './ladder.js';
import { historyAxis } from './history.js';
import { refsAxis } from './refs.js';
import type { RunningService } from '../service.js';
import { signIn, type SignedIn } from './signed-in.js';
import { siteAxis } from './site.js';
import { treeAxis } from './tree.js';

type Axis = (ctx: BenchContext, ladder: Ladder, service: RunningService, user: SignedIn, views: number) => Promise<AxisTable>;

/** History, tree and refs first (the order), then the site's tables. */
const AXES: Array<[string, Axis]> = [
  ['history', historyAxis],
  ['trees', treeAxis],
  ['refs', refsAxis],
  ['site', (ctx, ladder, service, _user, views) => siteAxis(ctx, ladder, service, views)],
];

/**
 * `npm run bench -- -- scale`: cost per request against data size, three sizes a factor of 10
 * apart per data axis (bench/README.md#scale-cost-per-request-against-data-size). Each axis is a
 * table of rows by size with largest/smallest and its target, and the peak RSS of each process at
 * each size. BENCH_SCALE_AXES picks axes (history,trees,refs,site).
 */
export async function benchScale(ctx: BenchContext): Promise<Section> {
  const skip = ctx.serviceUnavailable();
  if (skip) return { name: 'scale', title: 'Scale ladder', tables: [], notes: [], skipped: skip };
  const ladder = scaleLadder(ctx.env);
  const views = Number(ctx.env.BENCH_SCALE_VIEWS ?? 5);
  const only = (ctx.env.BENCH_SCALE_AXES ?? AXES.map(([n]) => n).join(',')).split(',');
  const ran = describeLadder(ladder);
  ctx.log(`scale: sizes ${ran}; axes ${only.join(', ')}`);
  const service = await ctx.service();
  const user = await signIn(service, 'scale');
  const tables: Table[] = [];
  const notes = [
    `sizes that ran: ${ran} (BENCH_SCALE_SIZES, BENCH_SCALE_DIVISOR); warm = median of ${views} views after the first (BENCH_SCALE_VIEWS), cold = the first view of that page of that data since githost started (its caches empty for it; the OS page cache is not dropped)`,
    'targets: warm reads constant in history length, tree size, ref count and table size (largest/smallest <= 1.5x); answers that grow with the data (every branch, the whole directory, compare across the history, the tree root of a bigger tree) are judged per byte of answer; merges and pushes of one commit <= 1.5x; clone <= 1.1x `git clone file://` at the largest size; every process under 500 MiB at every size',
    'every request is one at a time through the gateway, signed in (web pages by the session cookie, API by the same session as bearer)',
  ];
  for (const [name, axis] of AXES) {
    if (!only.includes(name)) continue;
    ctx.log(`scale: ${name}`);
    try {
      const table = await axis(ctx, ladder, service, user, views);
      tables.push(...table.tables());
      notes.push(...table.failuresSeen.map((f) => `not measured: ${f}`));
    } catch (err) {
      notes.push(`axis ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      ctx.log(`scale: ${name} failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    }
  }
  return { name: 'scale', title: 'Scale ladder', tables, notes };
}
