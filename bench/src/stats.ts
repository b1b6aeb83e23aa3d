/** Latency summaries. Inputs are in milliseconds. */
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((s, v) => s + v, 0);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: sorted.length ? sum / sorted.length : NaN,
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
  };
}

/** Milliseconds since an arbitrary origin, sub-microsecond resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = nowMs();
  const value = await fn();
  return { ms: nowMs() - start, value };
}

export function fmtMs(ms: number | undefined): string {
  if (ms === undefined || Number.isNaN(ms)) return '—';
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  if (ms < 10_000) return `${ms.toFixed(0)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

export function fmtNum(n: number | undefined, digits = 0): string {
  if (n === undefined || Number.isNaN(n)) return '—';
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function fmtRatio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || Number.isNaN(a) || Number.isNaN(b) || b === 0) return '—';
  return `${(a / b).toFixed(2)}×`;
}

export function fmtMiB(bytes: number | undefined): string {
  if (bytes === undefined || Number.isNaN(bytes)) return '—';
  return `${(bytes / 1048576).toFixed(0)} MiB`;
}

/** `yes`/`NO` so a missed target stands out in a table. */
export function verdict(ok: boolean | undefined): string {
  return ok === undefined ? '—' : ok ? 'yes' : 'NO';
}
