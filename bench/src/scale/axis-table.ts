import { read } from '../big-pages.js';
import type { Table } from '../report.js';
import type { RssPeaks } from '../rss.js';
import { fmtMiB, fmtMs, verdict } from '../stats.js';

/**
 * What a row is held to (the targets): `constant` (largest/smallest <= 1.5x), `answer`
 * (grows linear in the answer only: time per byte of answer, largest/smallest <= 1.5x), `clone`
 * (against `git clone file://` of the same repository at the largest size, <= 1.1x) or `none`
 * (a figure: cold views, set-up steps).
 */
export type Target = 'constant' | 'answer' | 'clone' | 'none';

const TARGET_TEXT: Record<Target, string> = {
  constant: '<= 1.5x',
  answer: 'per byte <= 1.5x',
  clone: '<= 1.1x file:// at largest',
  none: '—',
};

export const PROCESS_LIMIT = 500 * 1024 * 1024;

interface Cell {
  ms: number;
  status?: number;
  bytes?: number;
  /** The same step's time of plain git over `file://` (for `clone`, what the target holds it to). */
  baseline?: number;
  /** What the baseline is, when not plain git over `file://` (e.g. `http-backend`). */
  baselineName?: string;
}

/** One data axis's table: row | size per step | largest/smallest | target | met. */
export class AxisTable {
  private readonly rows = new Map<string, { target: Target; cells: Map<number, Cell> }>();
  private readonly rss = new Map<number, RssPeaks>();
  private readonly failures: string[] = [];

  constructor(
    readonly title: string,
    /** Column label of each step that runs, e.g. `10,000 commits`. */
    private readonly labels: Map<number, string>,
  ) {}

  record(row: string, target: Target, step: number, cell: Cell): void {
    const entry = this.rows.get(row) ?? { target, cells: new Map<number, Cell>() };
    entry.cells.set(step, cell);
    this.rows.set(row, entry);
  }

  /** A row that could not be measured at this step, said in the notes rather than lost. */
  failed(row: string, step: number, err: unknown): void {
    this.failures.push(`${row} at ${this.labels.get(step)}: ${err instanceof Error ? err.message : String(err)}`);
  }

  get failuresSeen(): string[] {
    return this.failures;
  }

  recordRss(step: number, peaks: RssPeaks): void {
    this.rss.set(step, peaks);
  }

  tables(): Table[] {
    const steps = [...this.labels.keys()];
    const rows = [...this.rows].map(([name, { target, cells }]) => {
      const shown = steps.map((s) => {
        const c = cells.get(s);
        if (!c) return '—';
        const status = c.status !== undefined && c.status !== 200 ? ` (${c.status})` : '';
        const base = c.baseline !== undefined ? ` (${c.baselineName ?? 'file://'} ${fmtMs(c.baseline)})` : '';
        return `${fmtMs(c.ms)}${status}${base}`;
      });
      const [ratio, met] = judge(target, steps.map((s) => cells.get(s)));
      return [name, ...shown, ratio, TARGET_TEXT[target], met];
    });
    const header = ['row', ...steps.map((s) => this.labels.get(s)!), 'largest/smallest', 'target', 'met'];
    const procs = new Set(steps.flatMap((s) => Object.keys(this.rss.get(s)?.byProcess ?? {})));
    const rssRows = [...procs].map((p) => {
      const peaks = steps.map((s) => this.rss.get(s)?.byProcess[p]);
      const worst = Math.max(0, ...peaks.map((b) => b ?? 0));
      return [p, ...peaks.map((b) => fmtMiB(b)), verdict(worst < PROCESS_LIMIT)];
    });
    const children = steps.map((s) => Object.entries(this.rss.get(s)?.childByCommand ?? {}).sort((a, b) => b[1] - a[1])[0]);
    rssRows.push(['largest other child (git, ...)', ...children.map((c) => (c ? `${fmtMiB(c[1])} (${c[0]})` : '—')), '—']);
    return [
      { title: `${this.title}: ms per request (warm: median of the next views; cold: the first view)`, header, rows },
      { title: `${this.title}: peak RSS of each process at each size`, header: ['process', ...steps.map((s) => this.labels.get(s)!), 'under 500 MiB'], rows: rssRows },
    ];
  }
}

/** largest/smallest of the steps measured, and whether the row's target holds. */
function judge(target: Target, cells: Array<Cell | undefined>): [string, string] {
  const measured = cells.filter((c): c is Cell => c !== undefined);
  if (measured.length === 0) return ['—', '—'];
  const first = measured[0]!;
  const last = measured[measured.length - 1]!;
  const ok = measured.every((c) => c.status === undefined || c.status === 200);
  if (target === 'clone') {
    if (last.baseline === undefined) return ['—', '—'];
    const r = last.ms / last.baseline;
    return [`${r.toFixed(2)}x of file://`, verdict(ok && r <= 1.1)];
  }
  if (measured.length < 2) return ['—', target === 'none' ? '—' : 'one size only'];
  if (target === 'answer' && first.bytes && last.bytes) {
    const r = last.ms / last.bytes / (first.ms / first.bytes);
    return [`${(last.ms / first.ms).toFixed(2)}x (${(last.bytes / first.bytes).toFixed(1)}x bytes; ${r.toFixed(2)}x per byte)`, verdict(ok && r <= 1.5)];
  }
  const r = last.ms / first.ms;
  return [`${r.toFixed(2)}x`, target === 'none' ? '—' : verdict(ok && r <= 1.5)];
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The first view of a page or answer (cold) and the median of the next `views` (warm). */
export async function coldAndWarm(url: string, headers: Record<string, string>, views: number): Promise<{ cold: Cell; warm: Cell }> {
  const first = await read(url, headers);
  const next: number[] = [];
  let last = first;
  for (let i = 0; i < views; i++) {
    last = await read(url, headers);
    next.push(last.ms);
  }
  return { cold: { ms: first.ms, status: first.status, bytes: first.bytes }, warm: { ms: median(next), status: last.status, bytes: last.bytes } };
}

/** The median of `runs` timings of `fn`. */
export async function medianOf(runs: number, fn: (i: number) => Promise<number>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) ms.push(await fn(i));
  return median(ms);
}
