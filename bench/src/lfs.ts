import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { copyFileSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Agent } from 'node:http';
import { join } from 'node:path';
import { once } from 'node:events';
import { createRepo, gitUrl, type BenchUser } from './api.js';
import type { BenchContext } from './context.js';
import { git } from './git.js';
import { LfsBasicClient } from './lfs-client.js';
import { CONCURRENT_TRANSFERS, eachLimited, getToFile, putFile, transferAgent, type LfsObject } from './lfs-http.js';
import { startPlainLfsServer, type PlainLfsServer } from './lfs-plain-server.js';
import { cpuMs } from './cpu.js';
import { statusBytes } from './listener.js';
import { workDir } from './paths.js';
import { waitForQuiet } from './quiet.js';
import type { Section, Table } from './report.js';
import type { NamedProcess, RssPeaks } from './rss.js';
import type { RunningService } from './service.js';
import { fmtMiB, fmtMs, nowMs, verdict } from './stats.js';

const MiB = 1024 * 1024;
const TARGET_SHARE = 0.8;
/** "Does not grow with object size": the largest object's peak within this of the smallest's. */
const FLAT_SLACK = 64 * MiB;

interface LfsCase {
  label: string;
  size: number;
  count: number;
}

/** One direction of one case: seconds and bytes for each contestant, githost's RSS peaks, and the
 *  CPU time each side's server processes spent on it (which a loaded machine changes far less
 *  than wall time). */
interface Measured {
  plainMs: number;
  hostMs: number;
  bytes: number;
  rss: RssPeaks;
  plainCpuMs?: number;
  /** Per githost process, by name. */
  hostCpuMs?: Record<string, number>;
  /** Each event loop's share of the transfer's wall time: the plain server's and the client's
   *  against the plain run, the gateway's, git-storage's and the client's against githost's. */
  loops?: { plain: Record<string, LoopTime>; host: Record<string, LoopTime> };
  /** The same transfer with each action sent to the href the batch named: the shard's own
   *  listener when direct transfers are on (docs/decisions/lfs.md#direct-transfers). */
  direct?: HostRun;
}

/** One githost run of a transfer. */
interface HostRun {
  ms: number;
  rss: RssPeaks;
  cpuMs: Record<string, number>;
  loops: Record<string, LoopTime>;
}

/** A case's two directions as one contestant ran them: through the gateway, or direct. */
interface CaseResult {
  c: LfsCase;
  mode: 'gateway' | 'direct';
  upload: Measured;
  download: Measured;
  /** The same upload into the plain server that also checks each object's sha256 (wall ms). */
  verifiedPlainUploadMs?: number;
}

/** A main thread's time over a transfer (/proc/<pid>/schedstat): on a CPU, runnable but waiting
 *  for one, and asleep (the rest of the wall time: nothing to do until bytes, a file call on the
 *  thread pool or the other side's answer came). */
interface LoopTime {
  runMs: number;
  queuedMs: number;
  asleepMs: number;
}

/** The event loops of one contestant, watched over one transfer. */
export function watchLoops(pids: Record<string, number>): () => Record<string, LoopTime> {
  const read = (pid: number): [number, number] => {
    try {
      const [run, queued] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
      return [run! / 1e6, queued! / 1e6];
    } catch {
      return [0, 0];
    }
  };
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, read(pid)]));
  const start = nowMs();
  return () => {
    const wall = nowMs() - start;
    return Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => {
        const [run, queued] = read(pid);
        const runMs = run - before[name]![0];
        const queuedMs = queued - before[name]![1];
        return [name, { runMs, queuedMs, asleepMs: Math.max(0, wall - runMs - queuedMs) }];
      }),
    );
  };
}

/**
 * Git LFS through githost (bench/README.md#lfs-git-lfs): the same bytes in objects of 1 MiB, 100 MiB and
 * 1 GiB, uploaded then downloaded by a small client doing what git-lfs's basic transfer does
 * (lfs-client.ts) against githost's batch API and object hrefs, and against a plain node `http`
 * server streaming them to and from disk (lfs-plain-server.ts), in the same run; then the real
 * `git lfs push`/`git lfs pull` for the 100 MiB objects. githost's per-process peak RSS for each.
 */
export async function benchLfs(ctx: BenchContext): Promise<Section> {
  const skip = ctx.serviceUnavailable();
  if (skip) return { name: 'lfs', title: 'Git LFS', tables: [], notes: [], skipped: skip };
  const cases = lfsCases(Number(ctx.env.BENCH_LFS_TOTAL_MIB ?? (ctx.quick ? 64 : 1024)));
  const service = await ctx.service();
  const user = await ctx.user();
  const scratch = mkdtempSync(join(workDir('scratch'), 'lfs-'));
  const notes: string[] = [
    `each case moves the same total; the client sends ${CONCURRENT_TRANSFERS} objects at once (git-lfs's lfs.concurrenttransfers default), batches of 100, keep-alive connections; downloads are written to disk and their sha256 checked, for both contestants`,
    'the plain server fsyncs each upload, renames it in place and fsyncs the directory, as githost does; it neither hashes nor authenticates, githost does both (and passes each byte through its gateway process unless direct); a second plain server that checks sha256 is timed on each upload after the race',
    'MiB/s = object bytes / wall time of the whole direction (githost: batch requests included); each direction once per case (a shared 2-core machine)',
  ];
  const plainDir = join(scratch, 'plain');
  const downloads = join(scratch, 'downloads');
  mkdirSync(downloads, { recursive: true });
  const verifyingDir = join(scratch, 'plain-verifying');
  let plain: PlainLfsServer | undefined;
  let verifying: PlainLfsServer | undefined;
  try {
    plain = await startPlainLfsServer(plainDir);
    verifying = await startPlainLfsServer(verifyingDir, { verify: true });
    await waitForQuiet(service.pid);
    const idle = Object.fromEntries(service.processes.map((p) => [p.name, statusBytes(p.pid, 'VmRSS') ?? 0]));
    const results: CaseResult[] = [];
    // Direct transfers are on in the bench's githost unless BENCH_LFS_DIRECT=0 (context.ts).
    const direct = ctx.env.BENCH_LFS_DIRECT !== '0';
    if (direct) notes.push('the git lfs rows follow the batch\'s hrefs, so with direct transfers on they are direct transfers');
    if (direct) notes.push('direct: the batch through the gateway, each object\'s bytes to and from git-storage\'s own listener (LFS_DIRECT_URL, docs/decisions/lfs.md#direct-transfers); the gateway rows send the same actions to the gateway, as without direct transfers, in the same githost, gateway first then direct, into separate repositories');
    let cli: { upload: Measured; download: Measured; checkoutMs: number } | undefined;
    for (const c of cases) {
      ctx.log(`lfs: ${c.count} x ${c.label}: writing the objects`);
      const objects = await writeObjects(join(scratch, 'src', c.label.replace(/\W+/g, '')), c);
      const url = await lfsUrl(user, service, c);
      const total = c.size * c.count;

      // Through the gateway first, into one repository; then direct, into another, so that
      // neither finds the objects already there.
      const directUrl = direct ? await lfsUrl(user, service, c) : undefined;
      const upload = await race(service, plain.pid, total, async (agent) => {
        await eachLimited(objects, CONCURRENT_TRANSFERS, (o) => putFile({ href: `${plain!.url}/${o.oid}` }, o, agent));
      }, async (agent) => {
        const sent = await new LfsBasicClient(url, user.username, user.token, agent, service.url).upload(objects);
        if (sent !== total) throw new Error(`githost took ${sent} of ${total} bytes (some objects already there?)`);
      }, directUrl === undefined ? undefined : async (agent) => {
        const client = new LfsBasicClient(directUrl, user.username, user.token, agent);
        const sent = await client.upload(objects);
        if (sent !== total) throw new Error(`githost direct took ${sent} of ${total} bytes`);
        if (client.origins.has(new URL(service.url).origin)) throw new Error('direct transfers: a batch pointed an action at the gateway');
      });
      ctx.log(`lfs: ${c.count} x ${c.label}: upload plain ${fmtMs(upload.plainMs)}, githost ${fmtMs(upload.hostMs)}${upload.direct ? `, direct ${fmtMs(upload.direct.ms)}` : ''}`);
      // The second baseline: what a plain server costs once it checks each upload's sha256 too.
      await syncDisks();
      const verifiedPlainUploadMs = await withAgent((agent) => time(() => eachLimited(objects, CONCURRENT_TRANSFERS, (o) => putFile({ href: `${verifying!.url}/${o.oid}` }, o, agent))));
      ctx.log(`lfs: ${c.count} x ${c.label}: upload to the plain server checking sha256 ${fmtMs(verifiedPlainUploadMs)}`);
      const download = await race(service, plain.pid, total, async (agent) => {
        await eachLimited(objects, CONCURRENT_TRANSFERS, async (o) => {
          const file = join(downloads, o.oid);
          await getToFile({ href: `${plain!.url}/${o.oid}` }, o, file, agent);
          rmSync(file, { force: true });
        });
      }, async (agent) => {
        await new LfsBasicClient(url, user.username, user.token, agent, service.url).download(objects, downloads);
      }, directUrl === undefined ? undefined : async (agent) => {
        await new LfsBasicClient(directUrl, user.username, user.token, agent).download(objects, downloads);
      });
      ctx.log(`lfs: ${c.count} x ${c.label}: download plain ${fmtMs(download.plainMs)}, githost ${fmtMs(download.hostMs)}${download.direct ? `, direct ${fmtMs(download.direct.ms)}` : ''}`);
      results.push({ c, mode: 'gateway', upload, download, verifiedPlainUploadMs });
      if (upload.direct && download.direct) results.push({ c, mode: 'direct', upload: asMeasured(upload, upload.direct), download: asMeasured(download, download.direct), verifiedPlainUploadMs });
      if (c === cases[1]) {
        cli = await gitLfsClient(ctx, service, user, objects, join(scratch, 'cli'), upload, download).catch((err: unknown) => {
          notes.push(`git lfs rows failed: ${err instanceof Error ? err.message : String(err)}`);
          return undefined;
        });
      }
      rmSync(join(scratch, 'src'), { recursive: true, force: true });
      for (const dir of [plainDir, verifyingDir]) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
      }
    }
    const plainHwm = statusBytes(plain.pid, 'VmHWM');
    notes.push(`the plain server's own high-water mark (VmHWM) over all cases: ${fmtMiB(plainHwm)}`);
    return { name: 'lfs', title: 'Git LFS', tables: [throughputTable(results, cli), verifiedUploadTable(results), cpuTable(results), loopTable(results), rssTable(service.processes, idle, results, cli)], notes };
  } finally {
    await plain?.stop();
    await verifying?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** 1 GiB by default: 1,024 x 1 MiB, 10 x 100 MiB, 1 x 1 GiB (a smaller total scales the middle size down). */
export function lfsCases(totalMiB: number): LfsCase[] {
  const medium = totalMiB >= 400 ? 100 : Math.max(1, Math.floor(totalMiB / 4));
  const big = totalMiB >= 1024 && totalMiB % 1024 === 0 ? `${totalMiB / 1024} GiB` : `${totalMiB} MiB`;
  return [
    { label: '1 MiB', size: MiB, count: totalMiB },
    { label: `${medium} MiB`, size: medium * MiB, count: Math.floor(totalMiB / medium) },
    { label: big, size: totalMiB * MiB, count: 1 },
  ];
}

/**
 * The plain server first, then githost, each after `sync` so neither inherits the other's dirty
 * pages, each with keep-alive connections of its own (none left idle from an earlier phase).
 */
async function race(service: RunningService, plainPid: number, bytes: number, plainRun: (agent: Agent) => Promise<void>, hostRun: (agent: Agent) => Promise<void>, directRun?: (agent: Agent) => Promise<void>): Promise<Measured> {
  const run = (name: string, work: (agent: Agent) => Promise<void>, loops: Record<string, number>): Promise<[number, Record<string, LoopTime>]> =>
    withAgent(async (agent): Promise<[number, Record<string, LoopTime>]> => {
      const watched = watchLoops(loops);
      return [await time(() => work(agent)), watched()];
    }).catch((err: unknown) => {
      throw new Error(`${name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    });
  await syncDisks();
  const plainCpuBefore = cpuMs([plainPid]);
  const [plainMs, plainLoops] = await run('plain server', plainRun, { 'plain server': plainPid, client: process.pid });
  const plainCpuMs = cpuMs([plainPid]) - plainCpuBefore;
  const carriers = Object.fromEntries(service.processes.filter((p) => p.name === 'gateway' || p.name === 'git-storage').map((p) => [p.name, p.pid]));
  const hostRunOnce = async (name: string, work: (agent: Agent) => Promise<void>): Promise<HostRun> => {
    await syncDisks();
    await waitForQuiet(service.pid);
    service.rss.reset();
    const before = service.processes.map((p) => cpuMs([p.pid]));
    const [ms, loops] = await run(name, work, { ...carriers, client: process.pid });
    const cpu = Object.fromEntries(service.processes.map((p, i) => [p.name, cpuMs([p.pid]) - before[i]!]));
    return { ms, rss: service.rss.read(), cpuMs: cpu, loops };
  };
  const host = await hostRunOnce('githost', hostRun);
  const direct = directRun ? await hostRunOnce('githost direct', directRun) : undefined;
  return { plainMs, hostMs: host.ms, bytes, rss: host.rss, plainCpuMs, hostCpuMs: host.cpuMs, loops: { plain: plainLoops, host: host.loops }, ...(direct ? { direct } : {}) };
}

/** The direct run as the tables read a transfer: the plain server's figures beside it. */
function asMeasured(m: Measured, d: HostRun): Measured {
  return { plainMs: m.plainMs, hostMs: d.ms, bytes: m.bytes, rss: d.rss, plainCpuMs: m.plainCpuMs, hostCpuMs: d.cpuMs, loops: { plain: m.loops?.plain ?? {}, host: d.loops } };
}

/** The repository of one case, and its LFS endpoint as git-lfs derives it from the remote. */
async function lfsUrl(user: BenchUser, service: RunningService, c: LfsCase): Promise<string> {
  const { name } = await createRepo(user, `lfs-${c.label.replace(/\W+/g, '').toLowerCase()}-${randomBytes(3).toString('hex')}`);
  return `${service.url}/${user.username}/${name}.git/info/lfs`;
}

/**
 * The real git-lfs for one case: `git lfs push origin main` from a repository holding the objects
 * as tracked files, then in a clone made with GIT_LFS_SKIP_SMUDGE=1, `git lfs fetch` (the
 * download) and `git lfs checkout` (what `git lfs pull` adds: writing the files into the work tree).
 */
async function gitLfsClient(ctx: BenchContext, service: RunningService, user: BenchUser, objects: LfsObject[], dir: string, nodeUpload: Measured, nodeDownload: Measured) {
  const { name } = await createRepo(user, `lfs-cli-${randomBytes(3).toString('hex')}`);
  const url = gitUrl(service.url, user, name);
  const work = join(dir, 'work');
  const env = { GIT_TERMINAL_PROMPT: '0', GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
  await git(['init', '-q', '-b', 'main', work]);
  await git(['lfs', 'install', '--local'], { cwd: work, env });
  await git(['lfs', 'track', '*.bin'], { cwd: work, env });
  objects.forEach((o, i) => copyFileSync(o.file, join(work, `object-${i}.bin`)));
  await git(['add', '.'], { cwd: work, env });
  await git(['commit', '-q', '-m', 'LFS objects'], { cwd: work, env });
  await git(['remote', 'add', 'origin', url], { cwd: work, env });
  const total = objects.reduce((s, o) => s + o.size, 0);
  await syncDisks();
  await waitForQuiet(service.pid);
  service.rss.reset();
  const pushMs = await time(() => git(['lfs', 'push', 'origin', 'main'], { cwd: work, env }));
  const pushRss = service.rss.read();
  ctx.log(`lfs: git lfs push ${fmtMs(pushMs)}`);
  await git(['push', '-q', 'origin', 'main'], { cwd: work, env });
  const clone = join(dir, 'clone');
  await git(['clone', '-q', url, clone], { env: { ...env, GIT_LFS_SKIP_SMUDGE: '1' } });
  await waitForQuiet(service.pid);
  service.rss.reset();
  const fetchMs = await time(() => git(['lfs', 'fetch', 'origin', 'main'], { cwd: clone, env }));
  const fetchRss = service.rss.read();
  const checkoutMs = await time(() => git(['lfs', 'checkout'], { cwd: clone, env }));
  ctx.log(`lfs: git lfs fetch ${fmtMs(fetchMs)}, checkout ${fmtMs(checkoutMs)}`);
  return {
    upload: { plainMs: nodeUpload.plainMs, hostMs: pushMs, bytes: total, rss: pushRss },
    download: { plainMs: nodeDownload.plainMs, hostMs: fetchMs, bytes: total, rss: fetchRss },
    checkoutMs,
  };
}

/** Random (incompressible) objects of the case's size, written once; their sha256 is their oid. */
async function writeObjects(dir: string, c: LfsCase): Promise<LfsObject[]> {
  mkdirSync(dir, { recursive: true });
  const chunk = Buffer.alloc(Math.min(c.size, 4 * MiB));
  const objects: LfsObject[] = [];
  for (let i = 0; i < c.count; i++) {
    const file = join(dir, `object-${i}`);
    const out = createWriteStream(file);
    const hash = createHash('sha256');
    for (let written = 0; written < c.size; ) {
      const n = Math.min(chunk.length, c.size - written);
      const piece = Buffer.from(randomFillSync(chunk, 0, n).subarray(0, n));
      hash.update(piece);
      if (!out.write(piece)) await once(out, 'drain');
      written += n;
    }
    out.end();
    await once(out, 'close');
    objects.push({ oid: hash.digest('hex'), size: c.size, file });
  }
  return objects;
}

function caseLabel(c: LfsCase, mode: CaseResult['mode']): string {
  return `${c.count} x ${c.label}${mode === 'direct' ? ', direct' : ''}`;
}

function rate(bytes: number, ms: number): number {
  return bytes / MiB / (ms / 1000);
}

function throughputTable(results: CaseResult[], cli: { upload: Measured; download: Measured; checkoutMs: number } | undefined): Table {
  // the direction in the first cell, so the summary of targets tells the rows apart
  const row = (label: string, direction: string, m: Measured, plainLabel = ''): string[] => {
    const share = m.plainMs / m.hostMs;
    return [
      `${label}, ${direction}`,
      `${rate(m.bytes, m.plainMs).toFixed(0)} MiB/s (${fmtMs(m.plainMs)})${plainLabel}`,
      `${rate(m.bytes, m.hostMs).toFixed(0)} MiB/s (${fmtMs(m.hostMs)})`,
      `${(share * 100).toFixed(0)} %`,
      `>= ${TARGET_SHARE * 100} % of plain`,
      verdict(share >= TARGET_SHARE),
    ];
  };
  const rows: string[][] = [];
  for (const { c, mode, upload, download } of results) {
    const label = caseLabel(c, mode);
    rows.push(row(label, 'upload', upload), row(label, 'download', download));
  }
  if (cli) {
    const medium = results.filter((r) => r.mode === 'gateway')[1]!.c;
    rows.push(row(`${medium.count} x ${medium.label}, git lfs push`, 'upload', cli.upload, ' [node client]'));
    rows.push(row(`${medium.count} x ${medium.label}, git lfs fetch`, 'download', cli.download, ' [node client]'));
    rows.push([`${medium.count} x ${medium.label}, git lfs pull = fetch + checkout, download`, '—', `${rate(cli.download.bytes, cli.download.hostMs + cli.checkoutMs).toFixed(0)} MiB/s (${fmtMs(cli.download.hostMs + cli.checkoutMs)}; checkout ${fmtMs(cli.checkoutMs)})`, '—', '—', '—']);
  }
  return {
    title: 'LFS throughput: githost\'s batch API and object hrefs (through the gateway, and ", direct" to the shard\'s own listener) vs a plain node http server streaming the same bytes to and from disk (target: githost >= 80 % of plain)',
    header: ['objects, direction', 'plain node http', 'githost', 'githost / plain', 'target', 'met'],
    rows,
  };
}

/** Where each direction's CPU went: the plain server's process against githost's processes that
 *  spent any (the gateway and git-storage carry the bytes; accounts answers what is not cached). */
function cpuTable(results: CaseResult[]): Table {
  const busy = new Set<string>();
  for (const { upload, download } of results) {
    for (const m of [upload, download]) for (const [name, ms] of Object.entries(m.hostCpuMs ?? {})) if (ms >= 50) busy.add(name);
  }
  const names = [...busy];
  const rows = results.flatMap(({ c, mode, upload, download }) =>
    ([['upload', upload], ['download', download]] as const).map(([direction, m]) => {
      const host = names.reduce((sum, n) => sum + (m.hostCpuMs?.[n] ?? 0), 0);
      return [`${caseLabel(c, mode)}, ${direction}`, fmtMs(m.plainCpuMs ?? 0), ...names.map((n) => fmtMs(m.hostCpuMs?.[n] ?? 0)), fmtMs(host), m.plainCpuMs ? `${(host / m.plainCpuMs).toFixed(1)}x` : '—'];
    }),
  );
  return {
    title: 'CPU time of the server processes during each LFS transfer (/proc utime + stime): the plain server vs githost\'s processes that spent 50 ms or more in some row',
    header: ['objects, direction', 'plain server', ...names, 'githost total', 'githost / plain'],
    rows,
  };
}

/**
 * Whether a transfer waited or computed: each event loop's wall time split into on a CPU, waiting
 * for one (the machine's other work) and asleep. A loop asleep most of a transfer that took far
 * longer than its CPU waited on something (the disk, the thread pool, the other side's window);
 * one mostly waiting for a CPU was held back by the machine's load.
 */
function loopTable(results: CaseResult[]): Table {
  const names = [...new Set(results.flatMap(({ upload }) => Object.keys(upload.loops?.host ?? {})))];
  const cell = (t: LoopTime | undefined): string => (t ? `${fmtMs(t.runMs)} / ${fmtMs(t.queuedMs)} / ${fmtMs(t.asleepMs)}` : '—');
  const rows = results.flatMap(({ c, mode, upload, download }) =>
    ([['upload', upload], ['download', download]] as const).map(([direction, m]) => [
      `${caseLabel(c, mode)}, ${direction}`,
      cell(m.loops?.plain['plain server']),
      cell(m.loops?.plain.client),
      ...names.map((n) => cell(m.loops?.host[n])),
    ]),
  );
  return {
    title: "Each event loop's (main thread's) time during each LFS transfer, /proc/<pid>/schedstat: on a CPU / runnable, waiting for a CPU / asleep (nothing to do until bytes, a file call or an answer came)",
    header: ['objects, direction', 'plain server', 'client (plain run)', ...names.map((n) => (n === 'client' ? 'client (githost run)' : n))],
    rows,
  };
}

function rssTable(processes: NamedProcess[], idle: Record<string, number>, results: CaseResult[], cli: { upload: Measured; download: Measured } | undefined): Table {
  const phases: Array<{ label: string; m: Measured }> = [];
  const suffix = (mode: CaseResult['mode']) => (mode === 'direct' ? ' direct' : '');
  for (const { c, mode, upload, download } of results) phases.push({ label: `${c.label} up${suffix(mode)}`, m: upload }, { label: `${c.label} down${suffix(mode)}`, m: download });
  if (cli) phases.push({ label: 'git lfs push', m: cli.upload }, { label: 'git lfs fetch', m: cli.download });
  // Flat by object size: the smallest objects' peak against the largest's, over both modes.
  const smallest = results.filter((r) => r.c === results[0]?.c);
  const largest = results.filter((r) => r.c === results[results.length - 1]?.c);
  const first = results[0];
  const last = results[results.length - 1];
  const rows = processes.map((p) => {
    const peak = (m: Measured | undefined): number => m?.rss.byProcess[p.name] ?? 0;
    const small = Math.max(...smallest.flatMap((r) => [peak(r.upload), peak(r.download)]), 0);
    const large = Math.max(...largest.flatMap((r) => [peak(r.upload), peak(r.download)]), 0);
    return [p.name, fmtMiB(idle[p.name]), ...phases.map(({ m }) => fmtMiB(m.rss.byProcess[p.name])), `${fmtMiB(large - small)}`, verdict(large <= small + FLAT_SLACK)];
  });
  return {
    title: `Peak RSS of every githost process during each LFS transfer (sampled every 200 ms); "flat": the largest objects' peak within ${fmtMiB(FLAT_SLACK)} of the smallest's`,
    header: ['process', 'idle before', ...phases.map((p) => p.label), `${last?.c.label ?? ''} peak - ${first?.c.label ?? ''} peak`, 'flat'],
    rows,
  };
}

/**
 * Uploads against the plain server that checks each object's sha256 before its rename, as githost
 * must (git-lfs docs/api/basic-transfers.md; docs/decisions/lfs.md#throughput): no target, the
 * share of githost's gap that is the check itself, as the SSH part's push with githost's receive
 * settings is for git's checks.
 */
function verifiedUploadTable(results: CaseResult[]): Table {
  const rows = results
    .filter((r) => r.verifiedPlainUploadMs !== undefined)
    .map(({ c, mode, upload, verifiedPlainUploadMs }) => {
      const verified = verifiedPlainUploadMs!;
      return [
        `${caseLabel(c, mode)}, upload`,
        `${rate(upload.bytes, upload.plainMs).toFixed(0)} MiB/s (${fmtMs(upload.plainMs)})`,
        `${rate(upload.bytes, verified).toFixed(0)} MiB/s (${fmtMs(verified)})`,
        `${rate(upload.bytes, upload.hostMs).toFixed(0)} MiB/s (${fmtMs(upload.hostMs)})`,
        `${((verified / upload.hostMs) * 100).toFixed(0)} %`,
      ];
    });
  return {
    title: 'LFS uploads against a plain server that also checks each object\'s sha256 against its oid before the rename (as githost must): the check\'s share of the gap (no target; run once after the race, not alternated)',
    header: ['objects, direction', 'plain node http', 'plain, checking sha256', 'githost', 'githost / plain checking sha256'],
    rows,
  };
}

/** `fn` with a transfer agent of its own, destroyed after (every contestant's run, lfs-http.ts). */
async function withAgent<T>(fn: (agent: Agent) => Promise<T>): Promise<T> {
  const agent = transferAgent();
  try {
    return await fn(agent);
  } finally {
    agent.destroy();
  }
}

function syncDisks(): Promise<void> {
  return new Promise((resolve) => spawn('sync', [], { stdio: 'ignore' }).on('close', () => resolve()).on('error', () => resolve()));
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = nowMs();
  await fn();
  return nowMs() - start;
}
