import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Receiver } from '@githost/test-support';
import { git, gitResult, makeWorkdir } from '../src/support/git.js';
import { sleep } from './cluster.js';
import type { User, Workload } from './workload.js';

/**
 * What every fault scenario checks once its fault is over, whichever harness ran it (one process
 * per service in cluster.ts, or replicas behind haproxy): every push and merge delivered as a
 * webhook (duplicates counted), no merge request stuck or reading otherwise than main says, every
 * repository sound, and no 5xx later than the recovery window. The figures go in one table.
 */

const run = promisify(execFile);

/** The documented recovery windows (docs/operating.md#failure-and-recovery): no 5xx later than this after
 *  the fault ended (the service restarted, the broker or the database up again). */
/** How big a fault run is: FAULTS_MODE=quick (the default, part of `npm test`), full (`npm run faults`), big. */
export const MODE: 'quick' | 'full' | 'big' = process.env.FAULTS_MODE === 'full' || process.env.FAULTS_MODE === 'big' ? process.env.FAULTS_MODE : 'quick';

/** Pushes and merges per scenario: the run's own quick size, the same full and big sizes for every run. */
export function sizeOf(quick: { pushes: number; merges: number }): { pushes: number; merges: number } {
  if (MODE === 'full') return { pushes: 200, merges: 10 };
  if (MODE === 'big') return { pushes: 2000, merges: 30 };
  return quick;
}

/** How long one scenario may take in the run's mode. */
export function scenarioTimeout(quickMs: number): number {
  return MODE === 'big' ? 1_800_000 : MODE === 'full' ? 600_000 : quickMs;
}

export const RECOVERY_WINDOW_MS = 15_000;
/** A merge intent whose process died is finished within 10 s grace + one 2 s tick. */
export const MERGE_RECOVERY_MS = 12_000;
const DELIVERY_WAIT_MS = 90_000;

export interface Figures {
  scenario: string;
  produced: number;
  delivered: number;
  lost: number;
  duplicates: number;
  redeliveries: number;
  /** From the end of the fault (restart begun, broker or database back) to every service ready. */
  recoveryMs: number;
  fiveXx: number;
  /** The 5xx by status and what was asked, e.g. `503 GET /api/repos/...: 12`. */
  fiveXxByKind: Record<string, number>;
  /** From the first to the last answer >= 500 a client got. */
  fiveXxWindowMs: number;
  /** The last answer >= 500, counted from the end of the fault (negative: before it ended). */
  last5xxAfterEndMs: number | null;
  /** Requests and git commands nothing answered (connection refused or cut). */
  clientErrors: number;
  /** Each of those: when (ms after the fault began), what, and why. */
  clientErrorDetails: string[];
  mergeHeldMs: number;
  clientErrorMs: string;
  problems: string[];
}

export interface Fault {
  /** When the fault began and when it ended (the restart began, the broker came back). */
  at: number;
  end: number;
  clientErrorMs?: string;
  problems?: string[];
  /** The window 5xx may fall in, when the scenario measures a stricter one than the recovery window. */
  fiveXxUntil?: number;
}

/** Where a scenario's outcome is read from outside the services. */
export interface CheckTarget {
  receiver: Receiver;
  user: User;
  databaseUrl: string;
  /** Searched for bare repositories (git-storage's data dirs, every shard's). */
  reposRoot: string;
}

export async function verify(t: CheckTarget, name: string, w: Workload, f: Fault, notReady: string[], recoveredAt: number, stuck: Promise<number>): Promise<Figures> {
  const problems = [...w.violations, ...(f.problems ?? [])];
  if (notReady.length) problems.push(`not ready by itself within 60 s: ${notReady.join(', ')}`);
  const key = (ref: string, sha: string) => `${ref} ${sha}`;
  const expected = new Set(w.pushes.filter((p) => p.ok).map((p) => `${p.repo}|${key(p.ref, p.sha)}`));
  const merged = w.merges.filter((m) => m.merged);
  const got = () => t.receiver.received.filter((d) => d.path === `/${name}`);
  const pushKey = (b: Record<string, unknown>) => `${(b.repository as { name: string }).name}|${key(String(b.ref), String(b.after))}`;
  const mrNumber = (b: Record<string, unknown>) => (b.merge_request as { number: number } | undefined)?.number;
  const missing = () => {
    const seen = new Set(got().filter((d) => d.event === 'push').map((d) => pushKey(d.body)));
    const seenMr = new Set(got().filter((d) => d.event === 'merge_request').map((d) => mrNumber(d.body)));
    return { pushes: [...expected].filter((k) => !seen.has(k)), merges: merged.filter((m) => !seenMr.has(m.number)).map((m) => m.number) };
  };
  const deadline = Date.now() + DELIVERY_WAIT_MS;
  while (Date.now() < deadline) {
    const m = missing();
    if (m.pushes.length === 0 && m.merges.length === 0) break;
    await sleep(250);
  }
  // Late duplicates get a moment to arrive too.
  await sleep(2000);
  const lost = missing();
  if (lost.pushes.length) problems.push(`${lost.pushes.length} push events lost, e.g. ${lost.pushes.slice(0, 3).join('; ')}`);
  if (lost.merges.length) problems.push(`merge_request events lost for ${lost.merges.map((n) => `!${n}`).join(' ')}`);
  const deliveries = got();
  const byContent = new Map<string, Set<string>>();
  let redeliveries = 0;
  const ids = new Set<string>();
  for (const d of deliveries) {
    const id = String(d.headers['x-githost-delivery']);
    if (ids.has(id)) redeliveries++;
    ids.add(id);
    const k = d.event === 'push' ? `push ${pushKey(d.body)}` : `${d.event} ${mrNumber(d.body)}`;
    byContent.set(k, (byContent.get(k) ?? new Set()).add(id));
  }
  const duplicates = [...byContent.values()].reduce((n, s) => n + s.size - 1, 0);
  for (const m of merged) {
    const events = byContent.get(`merge_request ${m.number}`)?.size ?? 0;
    if (events !== 1) problems.push(`!${m.number}: ${events} merge_request events (one expected)`);
  }
  // Merged iff main contains the source tip; none stuck.
  const work = makeWorkdir();
  await git(work, 'init', '-q');
  await git(work, 'fetch', '-q', w.remote(w.mergeRepo), 'main');
  for (const m of w.merges) {
    const contained = (await gitResult(work, 'merge-base', '--is-ancestor', m.sourceSha, 'FETCH_HEAD')).code === 0;
    const now = await w.call<{ state: string }>('GET', `/api/repos/${t.user.username}/${w.mergeRepo}/merge-requests/${m.number}`);
    if ((now.body.state === 'merged') !== contained) problems.push(`!${m.number} reads ${now.body.state} but main ${contained ? 'contains' : 'lacks'} its source tip`);
  }
  const stale = await stuck;
  if (stale !== 0) problems.push(`${stale} open merge requests held a merge intent not refreshed for 3 s, ${MERGE_RECOVERY_MS / 1000} s after the fault ended`);
  const intentsLeft = await staleOpenIntents(t.databaseUrl, 0);
  if (intentsLeft !== 0) problems.push(`${intentsLeft} open merge requests still hold a merge intent at the end`);
  problems.push(...(await fsckAll(t.reposRoot)));
  const fiveXx = w.answers.filter((a) => a.status >= 500 && a.at >= f.at);
  const until = f.fiveXxUntil ?? f.end + RECOVERY_WINDOW_MS;
  const lastLate = fiveXx.filter((a) => a.at > until);
  if (lastLate.length) problems.push(`${lastLate.length} answers >= 500 later than ${until - f.end} ms after the fault ended, e.g. ${lastLate[0]!.status} to ${lastLate[0]!.what} at +${lastLate[0]!.at - f.end} ms`);
  return {
    scenario: name,
    produced: expected.size + merged.length,
    delivered: expected.size + merged.length - lost.pushes.length - lost.merges.length,
    lost: lost.pushes.length + lost.merges.length,
    duplicates,
    redeliveries,
    recoveryMs: recoveredAt - f.end,
    fiveXx: fiveXx.length,
    fiveXxByKind: fiveXx.reduce<Record<string, number>>((m, a) => ({ ...m, [`${a.status} ${a.what}`]: (m[`${a.status} ${a.what}`] ?? 0) + 1 }), {}),
    fiveXxWindowMs: fiveXx.length ? fiveXx[fiveXx.length - 1]!.at - fiveXx[0]!.at : 0,
    last5xxAfterEndMs: fiveXx.length ? fiveXx[fiveXx.length - 1]!.at - f.end : null,
    clientErrors: w.answers.filter((a) => a.status === 0 && a.at >= f.at).length,
    clientErrorDetails: w.answers.filter((a) => a.status === 0 && a.at >= f.at).map((a) => `+${a.at - f.at} ms ${a.what}: ${a.detail ?? '?'}`),
    mergeHeldMs: Math.max(0, ...w.merges.map((m) => m.heldMs)),
    clientErrorMs: f.clientErrorMs ?? '-',
    problems,
  };
}

/** Open merge requests whose merge intent was not refreshed for `idleS` seconds (the process
 *  merging refreshes it every 2 s); -1 when the database could not be asked. */
export async function staleOpenIntents(databaseUrl: string, idleS = 3): Promise<number> {
  try {
    const sql = `SELECT count(*) FROM merge_requests.merge_intents i JOIN merge_requests.merge_requests m ON m.id = i.mr_id WHERE m.state = 'open' AND i.updated_at < clock_timestamp() - interval '${idleS} seconds'`;
    const { stdout } = await run('psql', [databaseUrl, '-Atc', sql]);
    return Number(stdout.trim());
  } catch {
    return -1;
  }
}

/** Every bare repository under `dir`. */
export function repositories(dir: string): string[] {
  if (!existsSync(dir)) return [];
  if (existsSync(path.join(dir, 'HEAD')) && existsSync(path.join(dir, 'objects'))) return [dir];
  return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).flatMap((e) => repositories(path.join(dir, e.name)));
}

async function fsckAll(root: string): Promise<string[]> {
  const problems: string[] = [];
  for (const repo of repositories(root)) {
    const r = await gitResult(repo, '--git-dir', repo, 'fsck', '--no-progress', '--no-dangling');
    if (r.code !== 0) problems.push(`git fsck ${path.basename(repo)}: ${r.stderr.trim().split('\n').slice(0, 3).join(' | ')}`);
  }
  return problems;
}

export function printTable(title: string, rows: Figures[]): void {
  if (rows.length === 0) return;
  const head = ['scenario', 'produced', 'delivered', 'lost', 'dups', 'redeliv', 'recovery ms', '5xx', '5xx window ms', 'last 5xx after end ms', 'no answer', 'merge held ms', 'client error ms', 'problems'];
  const lines = rows.map((r) => [r.scenario, r.produced, r.delivered, r.lost, r.duplicates, r.redeliveries, r.recoveryMs, r.fiveXx, r.fiveXxWindowMs, r.last5xxAfterEndMs ?? '-', r.clientErrors, r.mergeHeldMs, r.clientErrorMs, r.problems.length].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [title, fmt(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(fmt)];
  for (const r of rows) if (r.fiveXx) out.push(`  ${r.scenario}: 5xx ${Object.entries(r.fiveXxByKind).map(([k, n]) => `${k} x${n}`).join(', ')}`);
  for (const r of rows) for (const p of new Set(r.problems)) out.push(`  ${r.scenario}: ${p}`);
  for (const r of rows) for (const d of r.clientErrorDetails) out.push(`  ${r.scenario}: no answer ${d}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
