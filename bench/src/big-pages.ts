import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Api } from './api.js';
import type { BenchContext } from './context.js';
import { git } from './git.js';
import { workDir } from './paths.js';
import type { Section, Table } from './report.js';
import { fmtMs } from './stats.js';

const QUIET_GIT = { GIT_TERMINAL_PROMPT: '0' };
const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** main: `huge/` with `entries` files and `chg/` with `changed`; `feature` changes every file of
 *  `chg/`; `branches` branches at main. One blob each side: the size is in trees and refs. */
export function bigRepository(entries: number, changed: number, branches: number): string {
  const out = ['blob', 'mark :1', 'data 4', 'one', '', 'blob', 'mark :2', 'data 4', 'two', ''];
  out.push('commit refs/heads/main', 'mark :10', 'committer B <b@bench.example> 1700000000 +0000', 'data 5', 'base', 'M 644 inline README.md', 'data 7', '# Big', '');
  for (let i = 0; i < entries; i++) out.push(`M 644 :1 huge/f${pad(i, 6)}`);
  for (let i = 0; i < changed; i++) out.push(`M 644 :1 chg/f${pad(i, 5)}`);
  out.push('', 'commit refs/heads/feature', 'mark :11', 'committer B <b@bench.example> 1700000100 +0000', 'data 7', 'change', 'from :10');
  for (let i = 0; i < changed; i++) out.push(`M 644 :2 chg/f${pad(i, 5)}`);
  out.push('');
  for (let i = 0; i < branches; i++) out.push(`reset refs/heads/b/${pad(i, 5)}`, 'from :10', '');
  out.push('done', '');
  return out.join('\n');
}

export interface Reading {
  status: number;
  bytes: number;
  ms: number;
}

export async function read(url: string, headers: Record<string, string>): Promise<Reading> {
  const started = performance.now();
  const res = await fetch(url, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, bytes: body.length, ms: performance.now() - started };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmtBytes = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} KB`);

/**
 * The pages of a big repository (docs/decisions/big-pages.md, docs/decisions/ref-pages.md): a
 * 100,000-entry directory, 10,000 branches, a merge request changing 10,000 files (BENCH_QUICK:
 * 20,000, 3,000, 2,000). Each page's bytes and time, cold (its first view) and warm (median of
 * the next views), signed in, through the gateway.
 */
export async function benchBigPages(ctx: BenchContext): Promise<Section> {
  const skip = ctx.serviceUnavailable();
  if (skip) return { name: 'big-pages', title: 'Big pages', tables: [], notes: [], skipped: skip };
  const [entries, branches, changed] = ctx.quick ? [20_000, 3_000, 2_000] : [100_000, 10_000, 10_000];
  const service = await ctx.service();
  const admin = new Api(service.url, service.adminToken);
  const username = `big${randomBytes(3).toString('hex')}`;
  const password = `bench-${randomBytes(8).toString('hex')}`;
  await admin.expect(201, 'POST', '/api/admin/users', { username, email: `${username}@bench.example`, password });
  const session = await new Api(service.url).expect<{ secret: string }>(201, 'POST', '/api/sessions', { username, password });
  const user = new Api(service.url, session.secret);
  await user.expect(201, 'POST', '/api/repos', { name: 'big' });
  const scratch = mkdtempSync(join(workDir('scratch'), 'big-'));
  try {
    await git(['init', '-q', '--bare'], { cwd: scratch, env: QUIET_GIT });
    ctx.log(`big pages: writing ${entries} entries, ${branches} branches, ${changed} changed files`);
    await git(['fast-import', '--quiet', '--done'], { cwd: scratch, env: QUIET_GIT, input: bigRepository(entries, changed, branches) });
    const url = new URL(service.url);
    url.username = username;
    url.password = session.secret;
    url.pathname = `/${username}/big.git`;
    await git(['push', '-q', url.toString(), 'main', 'feature'], { cwd: scratch, env: QUIET_GIT });
    for (let from = 0; from < branches; from += 500) {
      const refspecs = Array.from({ length: Math.min(500, branches - from) }, (_, i) => `refs/heads/b/${pad(from + i, 5)}:refs/heads/b/${pad(from + i, 5)}`);
      await git(['push', '-q', url.toString(), ...refspecs], { cwd: scratch, env: QUIET_GIT });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const mr = await user.expect<{ number: number }>(201, 'POST', `/api/repos/${username}/big/merge-requests`, { title: 'Change every file', source_branch: 'feature', target_branch: 'main' });
  const cookie = { cookie: `githost_session=${encodeURIComponent(session.secret)}` };
  const bearer = { authorization: `Bearer ${session.secret}` };
  const base = `/${username}/big`;
  const api = `/api/repos/${username}/big`;
  // The detail's diff is cached by its two commit ids (docs/decisions/merge-request-page-diff.md#cache):
  // the API row's cold view computes it, the warm views look it up.
  const pages: Array<{ name: string; path: string; headers: Record<string, string> }> = [
    { name: `web: directory of ${entries.toLocaleString('en-US')} entries`, path: `${base}/-/tree/main/huge`, headers: cookie },
    { name: `API: tree of that directory`, path: `${api}/tree/main/huge`, headers: bearer },
    { name: 'API: tree of that directory, ?limit=1000 (what the page asks)', path: `${api}/tree/main/huge?limit=1000`, headers: bearer },
    { name: `web: repository home (${branches.toLocaleString('en-US')} branches)`, path: base, headers: cookie },
    { name: 'web: branches page', path: `${base}/-/branches`, headers: cookie },
    { name: 'web: branches page, filtered (?q=b/0042)', path: `${base}/-/branches?q=b/0042`, headers: cookie },
    { name: 'API: branches, every one (the seed answer)', path: `${api}/branches`, headers: bearer },
    { name: 'API: branches, ?per_page=100&page=50', path: `${api}/branches?per_page=100&page=50`, headers: bearer },
    { name: 'web: ref switcher menu', path: `${base}/-/refs?view=tree&ref=main`, headers: cookie },
    { name: 'web: ref switcher menu, ?q=0042', path: `${base}/-/refs?view=tree&ref=main&q=0042`, headers: cookie },
    { name: `API: merge request detail (diff of ${changed.toLocaleString('en-US')} files; warm: from the diff cache)`, path: `${api}/merge-requests/${mr.number}`, headers: bearer },
    { name: `web: merge request changing ${changed.toLocaleString('en-US')} files`, path: `${base}/-/merge-requests/${mr.number}`, headers: cookie },
    { name: 'web: that merge request, one file shown (?file=)', path: `${base}/-/merge-requests/${mr.number}?file=chg%2Ff00007`, headers: cookie },
    { name: 'web: compare page (branch selects, 30 each)', path: `${base}/-/compare`, headers: cookie },
    { name: 'web: settings (default branch select, 30)', path: `${base}/-/settings`, headers: cookie },
  ];
  const warmViews = ctx.quick ? 5 : 10;
  const table: Table = { title: 'Pages of a big repository through the gateway, signed in: bytes, first view (cold) and median of the next views (warm)', header: ['page', 'status', 'bytes', 'cold', 'warm p50'], rows: [] };
  for (const p of pages) {
    const cold = await read(service.url + p.path, p.headers);
    const warm: number[] = [];
    for (let i = 0; i < warmViews; i++) warm.push((await read(service.url + p.path, p.headers)).ms);
    table.rows.push([p.name, String(cold.status), fmtBytes(cold.bytes), fmtMs(cold.ms), fmtMs(median(warm))]);
    ctx.log(`big pages: ${p.name}: ${cold.status} ${fmtBytes(cold.bytes)} cold ${fmtMs(cold.ms)} warm ${fmtMs(median(warm))}`);
  }
  return { name: 'big-pages', title: 'Big pages', tables: [table], notes: [] };
}
