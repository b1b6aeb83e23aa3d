import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { BenchContext } from './context.js';
import { readdirSync, readFileSync } from 'node:fs';
import { cpuMs } from './cpu.js';
import { git, gitText } from './git.js';
import { hostedRepoPath } from './hosted-path.js';
import { fetchOnce, get } from './load.js';
import { workDir } from './paths.js';
import { waitForQuiet } from './quiet.js';
import type { Section, Table } from './report.js';
import { fmtMs, fmtNum, fmtRatio, nowMs, summarize } from './stats.js';

const CGIT = process.env.BENCH_CGIT ?? '/usr/lib/cgit/cgit.cgi';
const CONNECTIONS = 16;
/** Each row's requests in this many slices per server, alternating between them. */
const SLICES = 6;

interface ColdRun {
  rps: number;
  seconds: number;
  requests: number;
  p50: number;
  p99: number;
  non200: number;
  /** CPU ms per answer of the server side (githost's processes, or the CGI server with its cgit children). */
  cpuPerAnswer: number;
  /** The same, process by process (each with the children it reaped: git-storage's git). */
  cpuByPid: Map<number, number>;
}

/** The live children of `pid` (git-storage's pooled `cat-file --batch` processes), from /proc. */
function liveChildren(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * A server process's CPU with its children: those it reaped (cpuMs) and those still running, which
 * the pooled cat-file processes are for a whole row; without them, work moved from a spawned git
 * into the pool would look free. A child running at both ends, born, or reaped in between counts
 * its share of the row either way (its reaped total replaces its running figure). Children that
 * are counted processes themselves (the launcher's services) are left to their own figure.
 */
function serverCpuMs(pid: number, counted: number[]): number {
  return cpuMs([pid], true) + cpuMs(liveChildren(pid).filter((c) => !counted.includes(c)), true);
}

/** Commit c's blob path: a file that commit added or changed, so each blob is one no earlier request read. */
interface Sample {
  commit: string;
  path: string;
}

/** `count` first-parent commits of main after skipping `skip`, each with a file it added or changed. */
async function samples(repoPath: string, skip: number, count: number): Promise<Sample[]> {
  const out = await gitText(['log', '--first-parent', '--no-renames', '--diff-filter=AM', '--name-only', '--format=%x01%H', `--skip=${skip}`, '-n', String(count * 2), 'main'], repoPath);
  const found: Sample[] = [];
  for (const block of out.split('\x01').slice(1)) {
    const [commit, ...files] = block.split('\n').map((l) => l.trim()).filter(Boolean);
    if (commit && files[0]) found.push({ commit, path: files[0] });
    if (found.length === count) break;
  }
  return found;
}

/** autocannon at 16 connections over `paths`, each requested once: every request names a different commit. */
async function coldLoad(origin: string, paths: string[], cpuPids: number[]): Promise<ColdRun> {
  let next = 0;
  const before = new Map(cpuPids.map((pid) => [pid, serverCpuMs(pid, cpuPids)]));
  const r = await autocannon({
    url: origin,
    connections: CONNECTIONS,
    amount: paths.length,
    timeout: 60,
    // autocannon ends a run at its next sample: at the default 1 s a slice of 100 answers that
    // took 0.3 s counted as 1 s, so the faster server's req/s was cut to 100/s.
    sampleInt: 10,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length]! }) }],
  });
  const cpuByPid = new Map(cpuPids.map((pid) => [pid, (serverCpuMs(pid, cpuPids) - before.get(pid)!) / paths.length]));
  const cpu = [...cpuByPid.values()].reduce((a, b) => a + b, 0) * paths.length;
  const ok = r.statusCodeStats?.['200']?.count ?? 0;
  // autocannon's average is over its samples; a 600-request run lasts a few seconds, so count it out
  return { rps: paths.length / (r.duration || 1), seconds: r.duration || 1, requests: paths.length, p50: r.latency.p50, p99: r.latency.p99, non200: paths.length - ok + r.errors + r.timeouts, cpuPerAnswer: cpu / paths.length, cpuByPid };
}

/**
 * githost's and cgit's requests of one row in `slices` alternating slices (githost, cgit, githost,
 * ...), so a change in the shared machine's load falls on both: req/s over the summed durations,
 * p50 the median of the slices' p50s, p99 the highest slice p99, CPU summed.
 */
async function alternating(sides: Array<{ origin: string; paths: string[]; pids: number[] }>, slices: number): Promise<ColdRun[]> {
  const runs: ColdRun[][] = sides.map(() => []);
  for (let i = 0; i < slices; i++) {
    for (let s = 0; s < sides.length; s++) {
      const { origin, paths, pids } = sides[s]!;
      const per = Math.ceil(paths.length / slices);
      const slice = paths.slice(i * per, (i + 1) * per);
      if (slice.length > 0) runs[s]!.push(await coldLoad(origin, slice, pids));
    }
  }
  return runs.map((rs, s) => {
    const n = sides[s]!.paths.length;
    const seconds = rs.reduce((t, r) => t + r.seconds, 0);
    const p50s = rs.map((r) => r.p50).sort((a, b) => a - b);
    return {
      rps: n / seconds,
      seconds,
      p50: p50s[Math.floor(p50s.length / 2)]!,
      p99: Math.max(...rs.map((r) => r.p99)),
      non200: rs.reduce((t, r) => t + r.non200, 0),
      cpuPerAnswer: rs.reduce((t, r) => t + r.cpuPerAnswer * r.requests, 0) / n,
      cpuByPid: new Map(sides[s]!.pids.map((pid) => [pid, rs.reduce((t, r) => t + (r.cpuByPid.get(pid) ?? 0) * r.requests, 0) / n])),
      requests: n,
    };
  });
}

/** One request at a time on one keep-alive connection over `paths`: the unloaded cold latency. */
async function coldSequential(origin: string, paths: string[]): Promise<{ p50: number; p99: number; non200: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let non200 = 0;
  try {
    for (const p of paths) {
      const start = nowMs();
      if ((await get(origin + p, agent)) !== 200) non200++;
      times.push(nowMs() - start);
    }
  } finally {
    agent.destroy();
  }
  const s = summarize(times);
  return { p50: s.p50, p99: s.p99, non200 };
}

async function startCgit(repoPath: string): Promise<{ origin: string; process: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(workDir('scratch'), 'cgit-'));
  const config = join(dir, 'cgitrc');
  // cache-size=0: no cgit cache, every request computed (what "uncached cgit" means here);
  // max-commit-count=50: the log page lists 50 commits, as githost's commits?limit=50.
  writeFileSync(config, ['cache-size=0', 'virtual-root=/', 'max-commit-count=50', 'enable-http-clone=0', 'repo.url=big', `repo.path=${repoPath}`, ''].join('\n'));
  const script = join(dirname(fileURLToPath(import.meta.url)), 'cgit-server.js');
  const child = spawn(process.execPath, [script, CGIT, config], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`cgit server exited ${code}`)));
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
  });
  return { origin: `http://127.0.0.1:${port}`, process: child, dir };
}

const enc = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/**
 * Cold reads beside an uncached cgit (docs/decisions/gateway-serves-warm-reads.md#cold-reads):
 * tree root, blob, commits limit=50 and commit, each request naming a commit no earlier request
 * named, 16 connections, the same autocannon client for githost (through the gateway) and for
 * cgit run as a CGI per request with its cache off; then a single client's cold tree root.
 */
export async function benchColdReads(ctx: BenchContext): Promise<Section> {
  const skip = ctx.serviceUnavailable();
  if (skip) return { name: 'cold-reads', title: 'Cold reads against cgit', tables: [], notes: [], skipped: skip };
  const repo = await ctx.repo();
  const perRow = Number(process.env.BENCH_COLD_REQUESTS ?? (ctx.quick ? 200 : 600));
  const sequentialCount = ctx.quick ? 50 : 100;
  const warmupCount = ctx.quick ? 50 : 100;
  const service = await ctx.service();
  const hosted = await ctx.hostedRepo((url) => git(['push', '-q', '--mirror', url], { cwd: repo.path, env: { GIT_TERMINAL_PROMPT: '0' } }).then());
  const user = await ctx.user();
  const api = `/api/repos/${user.username}/${hosted.name}`;
  const hostedPath = hostedRepoPath(service.dataDir, hosted.id, repo.path);
  const notes: string[] = [];

  // Disjoint commit sets: the warm-up, each row and the single-client row read commits no other read.
  const rows = [
    { name: 'tree root', githost: (s: Sample) => `${api}/tree/${s.commit}`, cgit: (s: Sample) => `/big/tree/?id=${s.commit}` },
    { name: 'blob', githost: (s: Sample) => `${api}/blob/${s.commit}/${enc(s.path)}`, cgit: (s: Sample) => `/big/blob/${enc(s.path)}?h=${s.commit}` },
    { name: 'commits limit=50', githost: (s: Sample) => `${api}/commits/${s.commit}?limit=50`, cgit: (s: Sample) => `/big/log/?id=${s.commit}` },
    { name: 'commit', githost: (s: Sample) => `${api}/commit/${s.commit}`, cgit: (s: Sample) => `/big/commit/?id=${s.commit}` },
  ];
  let offset = 0;
  const take = async (n: number): Promise<Sample[]> => {
    const got = await samples(repo.path, offset, n);
    offset += n * 2;
    if (got.length < n) throw new Error(`only ${got.length} of ${n} commits with a changed file after ${offset}`);
    return got;
  };
  const warmup = await take(warmupCount);
  const sets = [];
  for (let i = 0; i < rows.length; i++) sets.push({ githost: await take(perRow), cgit: await take(perRow) });
  const sequential = await take(sequentialCount);
  const sequentialCgit = await take(sequentialCount);

  const check = await fetchOnce(`${service.url}${rows[0]!.githost(warmup[0]!)}`);
  if (check.status !== 200) throw new Error(`githost tree root answered ${check.status} ${check.body.slice(0, 200)}`);
  // Every process compiles its hot paths during its first requests: one unmeasured round of each row first.
  ctx.log('cold reads: warm-up round (not measured, its own commits)');
  for (const row of rows) await coldLoad(service.url, warmup.map(row.githost), []);
  await waitForQuiet(service.pid);

  let cgit: Awaited<ReturnType<typeof startCgit>> | undefined;
  if (!existsSync(CGIT)) notes.push(`cgit rows skipped: ${CGIT} not found (apt-get install cgit)`);
  else {
    cgit = await startCgit(hostedPath);
    const probe = await fetchOnce(`${cgit.origin}${rows[0]!.cgit(warmup[0]!)}`);
    if (probe.status !== 200 || !probe.body.includes(warmup[0]!.commit.slice(0, 7))) {
      notes.push(`cgit rows skipped: cgit answered ${probe.status} ${probe.body.slice(0, 200)}`);
      cgit.process.kill();
      cgit = undefined;
    }
  }
  const githostPids = service.processes.map((p) => p.pid);
  const hops = service.processes.filter((p) => ['gateway', 'browse', 'git-storage'].includes(p.name));
  const split: Table = {
    title: 'Where a cold answer\'s CPU goes in githost (bench/src/cpu.ts: each process\'s utime+stime over the row, git-storage with the git it ran), ms per answer',
    header: ['read', ...hops.map((p) => p.name), 'other githost processes', 'githost total', 'cgit (CGI server + cgit)'],
    rows: [],
  };
  const table: Table = {
    title: `Cold reads, ${perRow} requests a row, each naming a different commit, ${CONNECTIONS} connections (autocannon for both) in ${SLICES} slices alternating between githost through the gateway and cgit as a CGI, cache-size=0`,
    header: ['read', 'githost req/s', 'p50', 'p99', 'CPU/answer', 'cgit req/s', 'p50', 'p99', 'CPU/answer', 'githost/cgit', 'target >= 4×'],
    rows: [],
  };
  try {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      ctx.log(`cold reads: ${row.name}`);
      const sides = [{ origin: service.url, paths: sets[i]!.githost.map(row.githost), pids: githostPids }];
      if (cgit) sides.push({ origin: cgit.origin, paths: sets[i]!.cgit.map(row.cgit), pids: [cgit.process.pid!] });
      const [g, c] = (await alternating(sides, SLICES)) as [ColdRun, ColdRun | undefined];
      if (g.non200 > 0) notes.push(`${row.name}: githost answered ${g.non200} requests with other than 200`);
      if (c && c.non200 > 0) notes.push(`${row.name}: cgit answered ${c.non200} requests with other than 200`);
      const ratio = c ? g.rps / c.rps : undefined;
      const byHop = hops.map((p) => g.cpuByPid.get(p.pid) ?? 0);
      split.rows.push([row.name, ...byHop.map(fmtMs), fmtMs(g.cpuPerAnswer - byHop.reduce((a, b) => a + b, 0)), fmtMs(g.cpuPerAnswer), fmtMs(c?.cpuPerAnswer)]);
      table.rows.push([row.name, fmtNum(g.rps), fmtMs(g.p50), fmtMs(g.p99), fmtMs(g.cpuPerAnswer), c ? fmtNum(c.rps) : '—', fmtMs(c?.p50), fmtMs(c?.p99), fmtMs(c?.cpuPerAnswer), fmtRatio(g.rps, c?.rps), ratio === undefined ? '—' : ratio >= 4 ? 'yes' : 'NO']);
      ctx.log(`cold reads: ${row.name}: githost ${fmtNum(g.rps)}/s p50 ${fmtMs(g.p50)}; cgit ${c ? `${fmtNum(c.rps)}/s p50 ${fmtMs(c.p50)}` : 'skipped'}`);
      await waitForQuiet(service.pid);
    }
    ctx.log('cold reads: single client, tree root');
    const s = await coldSequential(service.url, sequential.map(rows[0]!.githost));
    const sc = cgit ? await coldSequential(cgit.origin, sequentialCgit.map(rows[0]!.cgit)) : undefined;
    const single: Table = {
      title: `Cold tree root, one client, ${sequentialCount} requests each naming a different commit`,
      header: ['server', 'p50', 'p99', 'target p50 < 20 ms (unloaded)'],
      rows: [
        ['githost (gateway)', fmtMs(s.p50), fmtMs(s.p99), s.p50 < 20 ? 'yes' : 'NO'],
        ['cgit (CGI, cache-size=0)', fmtMs(sc?.p50), fmtMs(sc?.p99), '—'],
      ],
    };
    if (s.non200 + (sc?.non200 ?? 0) > 0) notes.push(`single client: ${s.non200} githost and ${sc?.non200 ?? 0} cgit answers other than 200`);
    const root = await gitText(['ls-tree', sequential[0]!.commit], repo.path);
    notes.push(`repository: ${repo.commits.toLocaleString('en-US')} commits, ${repo.files.toLocaleString('en-US')} files, a root of ${root.trim().split('\n').length} entries; cgit reads the hosted repository's own pack`);
    notes.push('CPU/answer: githost\'s processes with the git they ran; cgit\'s, its CGI server with every cgit process');
    notes.push(`each row's requests in ${SLICES} slices a server, alternating: req/s over the summed slices, p50 the median slice p50, p99 the highest slice p99 (autocannon's, whole ms)`);
    notes.push('cgit\'s pages: tree/?id=<commit> (HTML listing with sizes), blob/<path>?h=<commit> (the file\'s bytes), log/?id=<commit> (50 commits), commit/?id=<commit> (with its diff); githost\'s answer JSON (the commit without a diff)');
    return { name: 'cold-reads', title: 'Cold reads against cgit', tables: [table, split, single], notes };
  } finally {
    cgit?.process.kill();
    if (cgit) rmSync(cgit.dir, { recursive: true, force: true });
  }
}
