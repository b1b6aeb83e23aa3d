import { CatFileBatch } from './catfile.js';
import type { BenchContext } from './context.js';
import { cpuMs } from './cpu.js';
import { git } from './git.js';
import { waitForQuiet } from './quiet.js';
import { hostedRepoPath } from './hosted-path.js';
import { fetchOnce, loadTest, sequentialLatency, type LoadResult } from './load.js';
import type { Section, Table } from './report.js';
import { fmtLargest, type RssSampler } from './rss.js';
import { fmtMiB, fmtMs, fmtNum, fmtRatio, nowMs, summarize, verdict, type Summary } from './stats.js';

interface Probe {
  name: string;
  /** Path below /api/repos/{owner}/{repo}. */
  path: string;
  /** Revisions read from one long-lived cat-file --batch for one equivalent read. */
  catFile?: (cat: CatFileBatch) => Promise<void>;
  /** The git command a naive implementation would spawn for the same answer. */
  spawn?: string[];
  conditional?: boolean;
  /** Sent with the user's bearer token (the gateway authenticates every request). */
  authenticated?: boolean;
  /** Targets (README.md#performance), checked against the measured row. */
  check?: (m: Measured) => boolean;
  target: string;
  /** A warm read the edge target (README.md#performance) compares with `GET /healthz` through the same gateway. */
  warmRead?: string;
}

interface Measured {
  load?: LoadResult;
  /** `GET /healthz` through the same gateway at the same load, in slices alternating with this row's. */
  healthz?: LoadResult;
  /** githost CPU µs per answer, this endpoint and `GET /healthz`. */
  cpuPerRequest?: number;
  healthzCpuPerRequest?: number;
  unloaded?: Summary;
  catFile?: Summary;
  spawned?: Summary;
  rssRoot?: number;
  /** The largest process with its peak, e.g. `browse 180 MiB`. */
  rssRootLabel?: string;
  /** Largest single child process (git) during the load. */
  rssChild?: number;
  error?: string;
}

const MiB = 1024 * 1024;

/** Browse endpoints under load, beside the same reads done on git directly. */
export async function benchBrowse(ctx: BenchContext): Promise<Section> {
  const repo = await ctx.repo();
  const k = repo.known;
  const quick = ctx.quick;
  const seconds = Number(process.env.BENCH_SECONDS ?? (quick ? 3 : 10));
  const sequential = quick ? 50 : 200;
  const spawns = quick ? 10 : 30;
  const catReads = quick ? 200 : 1000;
  const walk = (count: number) => async (cat: CatFileBatch): Promise<void> => {
    let rev = 'refs/heads/main';
    for (let i = 0; i < count; i++) {
      const c = await cat.read(rev);
      const parent = /^parent ([0-9a-f]{40})$/m.exec(c.content.toString());
      if (!parent) break;
      rev = parent[1]!;
    }
  };
  const fast = (m: Measured): boolean => (m.load?.rps ?? 0) >= 1500 && (m.load?.p99 ?? Infinity) < 60 && (m.unloaded?.p50 ?? Infinity) < 3;
  const probes: Probe[] = [
    { name: `tree, ${repo.params.smallEntries} entries`, path: `/tree/main/${k.smallDir}`, catFile: (c) => c.read(`main:${k.smallDir}`).then(), spawn: ['ls-tree', '-l', '--end-of-options', `main:${k.smallDir}`], check: fast, target: '>= 1,500/s, p99 < 60 ms, unloaded p50 < 3 ms', warmRead: 'tree' },
    { name: `tree, ${repo.params.wideEntries} entries`, path: `/tree/main/${k.wideDir}`, catFile: (c) => c.read(`main:${k.wideDir}`).then(), spawn: ['ls-tree', '-l', '--end-of-options', `main:${k.wideDir}`], check: (m) => (m.load?.rps ?? 0) >= 600, target: '>= 600/s' },
    { name: `tree, ${repo.params.depth} deep`, path: `/tree/main/${k.deepDir}`, catFile: (c) => c.read(`main:${k.deepDir}`).then(), spawn: ['ls-tree', '-l', '--end-of-options', `main:${k.deepDir}`], target: '—' },
    { name: 'blob, 10 KiB', path: `/blob/main/${k.blob10k}`, catFile: (c) => c.read(`main:${k.blob10k}`).then(), spawn: ['cat-file', '-p', `main:${k.blob10k}`], check: fast, target: '>= 1,500/s, p99 < 60 ms, unloaded p50 < 3 ms', warmRead: 'blob' },
    { name: 'raw, 10 KiB', path: `/raw/main/${k.blob10k}`, catFile: (c) => c.read(`main:${k.blob10k}`).then(), spawn: ['cat-file', '-p', `main:${k.blob10k}`], target: '>= blob, 10 KiB', warmRead: 'raw' },
    { name: 'blob, 1 MiB', path: `/blob/main/${k.blob1m}`, catFile: (c) => c.read(`main:${k.blob1m}`).then(), spawn: ['cat-file', '-p', `main:${k.blob1m}`], target: '—' },
    { name: 'commits?limit=100', path: '/commits/main?limit=100', catFile: walk(100), spawn: ['log', '-n', '100', '--end-of-options', 'refs/heads/main'], check: (m) => (m.unloaded?.p50 ?? Infinity) < 20 && (m.unloaded?.p50 ?? Infinity) <= 1.5 * (m.spawned?.p50 ?? 0), target: 'unloaded p50 < 20 ms and <= 1.5× git log', warmRead: 'commits' },
    { name: 'commit', path: `/commit/${repo.head}`, catFile: (c) => c.read(repo.head).then(), spawn: ['cat-file', '-p', repo.head], target: '—', warmRead: 'commit' },
    { name: 'branches', path: '/branches', spawn: ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/'], check: (m) => (m.unloaded?.p50 ?? Infinity) < 10, target: 'unloaded p50 < 10 ms', warmRead: 'branches' },
    { name: 'tags', path: '/tags', spawn: ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/tags/'], target: '—', warmRead: 'tags' },
    { name: `tree, ${repo.params.smallEntries} entries, with a token`, path: `/tree/main/${k.smallDir}`, authenticated: true, target: '—' },
    { name: `304 (tree, ${repo.params.smallEntries} entries)`, path: `/tree/main/${k.smallDir}`, conditional: true, check: (m) => (m.load?.rps ?? 0) >= 3000, target: '>= 3,000/s' },
  ];

  const notes: string[] = [];
  const measured = new Map<Probe, Measured>();
  let rawVsBlob: { raw: Slices; blob: Slices } | undefined;
  let rawPath = repo.path;
  let base: string | undefined;
  const skip = ctx.serviceUnavailable();
  if (skip) notes.push(`githost side skipped: ${skip}`);
  else {
    const service = await ctx.service();
    const hosted = await ctx.hostedRepo((url) => git(['push', '-q', '--mirror', url], { cwd: repo.path, env: { GIT_TERMINAL_PROMPT: '0' } }).then());
    rawPath = hostedRepoPath(service.dataDir, hosted.id, repo.path);
    const user = await ctx.user();
    base = `${service.url}/api/repos/${user.username}/${hosted.name}`;
    const check = await fetchOnce(`${base}/branches`);
    if (check.status !== 200) notes.push(`githost side skipped: GET branches answered ${check.status} ${check.body.slice(0, 200)}`);
    else {
      const waited = await waitForQuiet(service.pid);
      if (waited > 1500) notes.push(`waited ${fmtMs(waited)} for the service to go idle (background work after the push) before measuring`);
      // Every process compiles its hot paths during its first few thousand requests; without one
      // unmeasured round over all endpoints, whichever endpoint came first would pay for it alone.
      ctx.log('browse: warm-up round (not measured)');
      for (const probe of probes) {
        const auth: Record<string, string> = probe.authenticated ? { authorization: `Bearer ${user.token}` } : {};
        await loadTest(`${base}${probe.path}`, { connections: 50, seconds: quick ? 1 : 2, headers: auth });
      }
      await waitForQuiet(service.pid);
      notes.push(`one unmeasured warm-up round over every endpoint (${quick ? 1 : 2} s each at 50 connections) before the first measurement`);
      for (const probe of probes) {
        ctx.log(`browse: ${probe.name}`);
        const auth: Record<string, string> = probe.authenticated ? { authorization: `Bearer ${user.token}` } : {};
        measured.set(probe, await measureService(`${base}${probe.path}`, probe, { seconds, sequential, rss: service.rss, auth, healthz: `${service.url}/healthz`, pids: service.processes.map((p) => p.pid) }));
      }
      const raw = probes.find((p) => p.warmRead === 'raw');
      const blob = probes.find((p) => p.warmRead === 'blob');
      if (raw && blob) {
        // Their own rows were measured minutes apart, and two loads on a shared machine differ by
        // a few percent: raw against blob is read from slices taken in the same moments.
        ctx.log('browse: raw and blob alternating');
        rawVsBlob = { raw: { loads: [], cpuMs: 0 }, blob: { loads: [], cpuMs: 0 } };
        const pids = service.processes.map((p) => p.pid);
        for (let i = 0; i < seconds; i++) {
          for (const which of i % 2 === 0 ? (['blob', 'raw'] as const) : (['raw', 'blob'] as const)) {
            await slice(rawVsBlob[which], `${base}${(which === 'raw' ? raw : blob).path}`, {}, pids);
          }
        }
        notes.push(`raw against blob: ${seconds} one-second slices of each at 50 connections, alternating (blob first, then raw first), after every row above`);
      }
      notes.push(`largest githost process high-water mark since start (VmHWM): ${fmtMiB(service.rss.highWaterMark())}`);
    }
  }
  notes.push(`raw reads on ${rawPath === repo.path ? 'the generated repository' : "git-storage's copy of the repository"}`);

  const cat = new CatFileBatch(rawPath);
  try {
    for (const probe of probes) {
      const m = measured.get(probe) ?? {};
      measured.set(probe, m);
      if (probe.catFile) {
        const times: number[] = [];
        await probe.catFile(cat); // warm
        const reads = probe.name.startsWith('commits') ? Math.ceil(catReads / 20) : catReads;
        for (let i = 0; i < reads; i++) {
          const start = nowMs();
          await probe.catFile(cat);
          times.push(nowMs() - start);
        }
        m.catFile = summarize(times);
      }
      if (probe.spawn) {
        const times: number[] = [];
        for (let i = 0; i < spawns; i++) {
          const start = nowMs();
          await git(probe.spawn, { cwd: rawPath });
          times.push(nowMs() - start);
        }
        m.spawned = summarize(times);
      }
    }
  } finally {
    cat.close();
  }

  const rows = probes.map((p) => {
    const m = measured.get(p)!;
    const memoryOk = Math.max(m.rssRoot ?? 0, m.rssChild ?? 0) < 300 * MiB;
    const expected = p.conditional ? '304' : '200';
    const onlyExpected = m.load !== undefined && m.load.errors === 0 && Object.keys(m.load.statuses).every((code) => code === expected);
    const met = m.load || m.unloaded ? verdict((p.check ? p.check(m) : true) && memoryOk && onlyExpected) : '—';
    return [
      p.name,
      m.error ?? fmtNum(m.load?.rps),
      fmtMs(m.load?.p50),
      fmtMs(m.load?.p99),
      fmtNum(m.healthz?.rps),
      fmtRatio(m.load?.rps, m.healthz?.rps),
      fmtNum(m.cpuPerRequest),
      fmtRatio(m.healthzCpuPerRequest, m.cpuPerRequest),
      fmtMs(m.unloaded?.p50),
      m.rssRootLabel ?? '—',
      fmtMiB(m.rssChild),
      fmtMs(m.catFile?.p50),
      fmtMs(m.spawned?.p50),
      fmtRatio(m.unloaded?.p50, m.catFile?.p50),
      fmtRatio(m.unloaded?.p50, m.spawned?.p50),
      p.target,
      met,
    ];
  });
  notes.push(
    `load: autocannon, 50 connections, ${seconds} s per endpoint in one-second slices alternating with as many of \`GET /healthz\` through the same gateway (the ratio columns compare figures from the same moments); "githost CPU µs / answer": user + system time of every githost process over those slices, per answer (robust to other load on the machine); anonymous reads of a public repository (one row with a bearer token); "unloaded p50": ${sequential} sequential requests on one keep-alive connection`,
    `cat-file: one long-lived \`git cat-file --batch\`, time per read (commits: a walk of 100 commits by first parent); spawn: \`git <cmd>\` spawned ${spawns} times`,
    'every process under 300 MiB, and only 200 (304) answers without errors under load, are part of each "met" verdict; the gateway\'s rate limits are off for the run',
  );
  const statuses = probes.map((p) => measured.get(p)?.load?.statuses).filter(Boolean);
  if (statuses.length) notes.push(`HTTP statuses under load: ${probes.map((p) => `${p.name}: ${JSON.stringify(measured.get(p)?.load?.statuses ?? {})}`).join('; ')}`);
  return {
    name: 'browse',
    title: 'Browse',
    tables: [
      {
        title: 'Browse endpoints through the gateway vs git on the same objects',
        header: ['endpoint', 'req/s (50 conn)', 'p50', 'p99', 'GET /healthz through the same gateway, req/s', 'req/s ÷ healthz', 'githost CPU µs / answer', 'healthz CPU ÷ this CPU', 'unloaded p50', 'service peak RSS', 'largest git child', 'cat-file read', 'git spawn p50', 'unloaded / cat-file', 'unloaded / spawn', 'target', 'met'],
        rows,
      },
      edgeTargets(probes, measured, rawVsBlob),
    ],
    notes,
  };
}

/** README.md#performance: a warm read costs what the gateway hop costs, and raw is as fast as blob. */
function edgeTargets(probes: readonly Probe[], measured: Map<Probe, Measured>, rawVsBlob?: { raw: Slices; blob: Slices }): Table {
  const rows: string[][] = [];
  for (const p of probes) {
    if (!p.warmRead) continue;
    const m = measured.get(p);
    const ratio = m?.load && m.healthz ? m.load.rps / m.healthz.rps : undefined;
    rows.push([`${p.name}: warm read >= 0.8× GET /healthz`, fmtNum(m?.load?.rps), fmtNum(m?.healthz?.rps), fmtRatio(m?.load?.rps, m?.healthz?.rps), fmtRatio(m?.healthzCpuPerRequest, m?.cpuPerRequest), verdict(ratio === undefined ? undefined : ratio >= 0.8)]);
  }
  const rawRps = rawVsBlob && merged(rawVsBlob.raw.loads).rps;
  const blobRps = rawVsBlob && merged(rawVsBlob.blob.loads).rps;
  const rawCpu = rawVsBlob && perRequest(rawVsBlob.raw);
  const blobCpu = rawVsBlob && perRequest(rawVsBlob.blob);
  rows.push(['raw, 10 KiB >= blob, 10 KiB (JSON), alternating slices', fmtNum(rawRps), fmtNum(blobRps), fmtRatio(rawRps, blobRps), fmtRatio(blobCpu, rawCpu), verdict(rawRps === undefined || blobRps === undefined ? undefined : rawRps >= blobRps)]);
  return { title: 'Edge targets: warm reads against GET /healthz through the same gateway (same run)', header: ['target', 'req/s', 'baseline req/s', 'req/s ratio', 'CPU-per-answer ratio (baseline ÷ this)', 'met (req/s ratio)'], rows };
}

async function measureService(url: string, probe: Probe, opts: { seconds: number; sequential: number; rss: RssSampler; auth: Record<string, string>; healthz: string; pids: number[] }): Promise<Measured> {
  const headers: Record<string, string> = { ...opts.auth };
  const first = await fetchOnce(url, headers);
  if (first.status !== 200) return { error: `HTTP ${first.status}` };
  if (probe.conditional) {
    const etag = first.headers.etag;
    if (typeof etag !== 'string') return { error: 'no ETag' };
    headers['if-none-match'] = etag;
    const again = await fetchOnce(url, headers);
    if (again.status !== 304) return { error: `HTTP ${again.status} to If-None-Match` };
  }
  // a short warm-up so the first endpoint does not pay for JIT and cold caches alone
  await loadTest(url, { connections: 10, seconds: 1, headers });
  const unloaded = await sequentialLatency(url, opts.sequential, headers);
  opts.rss.reset();
  // The endpoint and `GET /healthz` through the same gateway in alternating one-second slices: the
  // machine is shared, so only figures taken in the same moments make a fair ratio.
  const endpoint: Slices = { loads: [], cpuMs: 0 };
  const healthz: Slices = { loads: [], cpuMs: 0 };
  for (let i = 0; i < opts.seconds; i++) {
    await slice(endpoint, url, headers, opts.pids);
    await slice(healthz, opts.healthz, {}, opts.pids);
  }
  const peaks = opts.rss.read();
  return {
    load: merged(endpoint.loads),
    healthz: merged(healthz.loads),
    cpuPerRequest: perRequest(endpoint),
    healthzCpuPerRequest: perRequest(healthz),
    unloaded: unloaded.summary,
    rssRoot: peaks.rootBytes,
    rssRootLabel: fmtLargest(peaks),
    rssChild: Math.max(0, ...Object.values(peaks.childByCommand)),
  };
}

interface Slices {
  loads: LoadResult[];
  /** CPU time githost's processes spent during the slices. */
  cpuMs: number;
}

async function slice(into: Slices, url: string, headers: Record<string, string>, pids: number[]): Promise<void> {
  const before = cpuMs(pids);
  into.loads.push(await loadTest(url, { connections: 50, seconds: 1, headers }));
  into.cpuMs += cpuMs(pids) - before;
}

/** githost's CPU time (user + system) per answer, in microseconds: what a request costs, whatever else loads the machine. */
function perRequest(s: Slices): number | undefined {
  const requests = s.loads.reduce((n, l) => n + l.rps, 0);
  return requests > 0 ? (s.cpuMs * 1000) / requests : undefined;
}

/** Slices of equal length as one run: mean rate, median p50, worst p99, statuses and errors summed. */
function merged(loads: LoadResult[]): LoadResult {
  const statuses: Record<string, number> = {};
  for (const l of loads) for (const [code, n] of Object.entries(l.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const p50s = loads.map((l) => l.p50).sort((a, b) => a - b);
  return {
    rps: loads.reduce((n, l) => n + l.rps, 0) / loads.length,
    p50: p50s[Math.floor(p50s.length / 2)]!,
    p99: Math.max(...loads.map((l) => l.p99)),
    statuses,
    errors: loads.reduce((n, l) => n + l.errors, 0),
  };
}

