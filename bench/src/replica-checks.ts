import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { readHaproxyStats, type HaproxyStats } from '@githost/test-support';
import { Api, createRepo, createUser, gitUrl } from './api.js';
import type { BenchContext } from './context.js';
import { git } from './git.js';
import { fetchOnce } from './load.js';
import { workDir } from './paths.js';
import type { Section } from './report.js';
import { launcherMissing, type RunningService } from './service.js';
import { descendants } from './rss.js';
import { startOwnGithost } from './replicas.js';
import { fmtMs, fmtNum } from './stats.js';

/**
 * haproxy's checks of slow servers (docs/decisions/replicas.md#slow-is-not-hung): two githosts with
 * 2 replicas each, one with the launcher's check settings and one with the ones before `timeout
 * check` (its haproxy started through a wrapper that removes that line from the generated config,
 * so each check has `inter`, 500 ms, in all), loaded in turn with the web tree page at 50
 * connections. Per githost: the pages that failed and what they said, haproxy's check failures and
 * servers marked down (its stats CSV, sampled), the pairings' partner checks marking a partner down
 * (their log lines), and, under the same load, how long haproxy takes to mark a SIGSTOPped gateway
 * down.
 */
export async function benchReplicaChecks(ctx: BenchContext): Promise<Section> {
  const notes: string[] = [];
  const loadRows: string[][] = [];
  const sectionRows: string[][] = [];
  const bodyRows: string[][] = [];
  const hungRows: string[][] = [];
  const services: RunningService[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const src = mkdtempSync(join(workDir('data'), 'replica-checks-src-'));
  const wrapperDir = mkdtempSync(join(tmpdir(), 'githost-bench-haproxy-'));
  const loads: number[] = [];
  // BENCH_REPLICA_CHECKS_BUSY=N: N shell loops spinning on the CPU meanwhile, the load other
  // engineers' builds and tests put on this machine when the replicas bench failed pages (20-30).
  const busy: ChildProcess[] = [];
  try {
    const skip = launcherMissing();
    if (skip) throw new Error(skip);
    // The checks as they were: no `timeout check` (each check's whole time is `inter`).
    const previous = join(wrapperDir, 'haproxy-previous-checks');
    writeFileSync(previous, `#!/bin/sh\n# launcher: haproxy -f <config> -db\nsed -i '/^  timeout check /d' "$2"\nexec haproxy "$@"\n`);
    chmodSync(previous, 0o755);
    const limits = { GITHOST_RATE_LIMIT_PER_MINUTE: '100000000', GITHOST_RATE_LIMIT_ANON_PER_MINUTE: '100000000' };
    const kinds: Array<{ label: string; env: Record<string, string> }> = [
      { label: 'checks before: no timeout check (500 ms a check)', env: { GITHOST_HAPROXY: previous } },
      { label: 'checks now (launcher/src/replicas.ts)', env: {} },
    ];
    const githosts: RunningService[] = [];
    for (const kind of kinds) {
      ctx.log(`replica checks: starting githost (${kind.label}) ...`);
      githosts.push(await startOwnGithost(ctx, 'githost_bench_replica_checks', `checks-${githosts.length}`, { REDIS_URL: '', GITHOST_REPLICAS: '2', ...limits, ...kind.env }, { services, cleanups }));
    }
    const stats = githosts.map((g) => haproxyOf(g));
    stats.forEach((s, i) => notes.push(`${kinds[i]!.label}: haproxy runs with \`${s.checkLine}\`${s.timeoutCheck ? `, \`${s.timeoutCheck}\`` : ', no `timeout check`'}`));

    await git(['init', '-q', '-b', 'main', src]);
    for (let i = 0; i < 20; i++) writeFileSync(join(src, `file-${i}.txt`), `line ${i}\n`.repeat(50));
    await git(['add', '.'], { cwd: src });
    await git(['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'files'], { cwd: src });
    const pages: string[] = [];
    for (const service of githosts) {
      const user = await createUser(new Api(service.url, service.adminToken), `rc${randomBytes(3).toString('hex')}`);
      await createRepo(user, 'small');
      await git(['push', '-q', gitUrl(service.url, user, 'small'), 'main'], { cwd: src, env: { GIT_TERMINAL_PROMPT: '0' } });
      const page = `${service.url}/${user.username}/small`;
      const check = await fetchOnce(page, { accept: 'text/html' });
      if (check.status !== 200) throw new Error(`${page} answered ${check.status}`);
      pages.push(page);
    }

    const spinners = Number(ctx.env.BENCH_REPLICA_CHECKS_BUSY ?? 0);
    for (let i = 0; i < spinners; i++) busy.push(spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
    if (spinners > 0) notes.push(`${spinners} shell loops spinning on the CPU throughout (BENCH_REPLICA_CHECKS_BUSY)`);
    // Load: the web tree page, each githost in turn, haproxy's stats sampled meanwhile.
    // BENCH_REPLICA_CHECKS_CONNECTIONS: more connections, longer queues in each process, slower checks.
    const connections = Number(ctx.env.BENCH_REPLICA_CHECKS_CONNECTIONS ?? 50);
    const seconds = ctx.quick ? 5 : 10;
    const slices = ctx.quick ? 2 : 4;
    const totals = githosts.map(() => ({ pages: 0, seconds: 0, statuses: {} as Record<string, number>, errors: 0, bodies: new Map<string, number>(), durations: [] as number[], before: undefined as HaproxyStats | undefined, bothDownSamples: new Map<string, number>() }));
    const partnerDownsBefore = githosts.map((g) => partnerDowns(g.logFile));
    for (let i = 0; i < slices; i++) {
      for (let k = 0; k < githosts.length; k++) {
        const which = (i + k) % githosts.length;
        const total = totals[which]!;
        total.before ??= await readHaproxyStats(stats[which]!.url);
        const sampler = sampleStats(stats[which]!.url, 250);
        const r = await pageLoad(pages[which]!, seconds, connections);
        const samples = await sampler.stop();
        loads.push(loadAverage());
        total.pages += r.answered;
        total.seconds += seconds;
        total.errors += r.errors;
        for (const [code, n] of Object.entries(r.statuses)) total.statuses[code] = (total.statuses[code] ?? 0) + n;
        for (const [body, n] of r.bodies) total.bodies.set(body, (total.bodies.get(body) ?? 0) + n);
        for (const rows of samples) {
          for (const [key, row] of rows) if (row.check_duration !== '' && key.includes('/') && !key.endsWith('/FRONTEND') && !key.endsWith('/BACKEND')) total.durations.push(Number(row.check_duration));
          // Sections with every server out: haproxy answers 503 "no server is up" at once.
          const bySection = new Map<string, boolean>();
          for (const [key, row] of rows) {
            const [section, server] = key.split('/');
            if (!server || server === 'FRONTEND' || server === 'BACKEND' || section!.endsWith('-writes') || section === 'stats') continue;
            bySection.set(section!, (bySection.get(section!) ?? false) || (row.status ?? '').startsWith('UP'));
          }
          for (const [section, anyUp] of bySection) if (!anyUp) total.bothDownSamples.set(section, (total.bothDownSamples.get(section) ?? 0) + 1);
        }
      }
    }
    const after = await Promise.all(stats.map((s) => readHaproxyStats(s.url)));
    const partnerDownsAfter = githosts.map((g) => partnerDowns(g.logFile));
    for (const [which, total] of totals.entries()) {
      const label = kinds[which]!.label;
      const non200 = Object.entries(total.statuses).filter(([code]) => code !== '200').reduce((n, [, c]) => n + c, 0);
      const failed = { chkfail: 0, chkdown: 0 };
      const perSection = new Map<string, { chkfail: number; chkdown: number }>();
      for (const [key, row] of after[which]!) {
        const [section, server] = key.split('/');
        if (!server || server === 'FRONTEND' || server === 'BACKEND' || row.check_status === '') continue;
        const before = total.before!.get(key);
        const d = { chkfail: Number(row.chkfail) - Number(before?.chkfail ?? 0), chkdown: Number(row.chkdown) - Number(before?.chkdown ?? 0) };
        failed.chkfail += d.chkfail;
        failed.chkdown += d.chkdown;
        const s = perSection.get(section!) ?? { chkfail: 0, chkdown: 0 };
        perSection.set(section!, { chkfail: s.chkfail + d.chkfail, chkdown: s.chkdown + d.chkdown });
      }
      const sorted = [...total.durations].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      const downs = partnerDownsAfter[which]! - partnerDownsBefore[which]!;
      loadRows.push([label, fmtNum(total.pages), fmtNum(total.pages / total.seconds), String(non200), Object.entries(total.statuses).filter(([c]) => c !== '200').map(([c, n]) => `${c}: ${n}`).join(', ') || '—', String(total.errors), String(failed.chkfail), String(failed.chkdown), `${fmtMs(at(0.5))} / ${fmtMs(at(0.99))} / ${fmtMs(sorted[sorted.length - 1] ?? 0)}`, String(downs)]);
      for (const [section, d] of perSection) if (d.chkfail || d.chkdown) sectionRows.push([label, section, String(d.chkfail), String(d.chkdown), String(total.bothDownSamples.get(section) ?? 0)]);
      for (const [body, n] of [...total.bodies].sort((a, b) => b[1] - a[1]).slice(0, 4)) bodyRows.push([label, String(n), body]);
    }

    // A gateway that hangs (SIGSTOP) under the same load: how long until haproxy marks it down.
    const rounds = ctx.quick ? 2 : 3;
    const windows = githosts.map(() => [] as number[]);
    for (let i = 0; i < rounds; i++) {
      for (const [which, service] of githosts.entries()) {
        const pid = service.processes.find((p) => p.name === 'gateway 2')?.pid;
        if (!pid) throw new Error('no process named "gateway 2"');
        await waitForState(stats[which]!.url, 'gateway/gateway-2', 'UP', 30_000);
        const load = pageLoad(pages[which]!, 14, connections);
        await new Promise((r) => setTimeout(r, 3_000));
        process.kill(pid, 'SIGSTOP');
        const stoppedAt = Date.now();
        try {
          windows[which]!.push((await waitForState(stats[which]!.url, 'gateway/gateway-2', 'DOWN', 60_000)) - stoppedAt);
        } finally {
          process.kill(pid, 'SIGCONT');
        }
        await load;
        loads.push(loadAverage());
      }
    }
    windows.forEach((w, which) => hungRows.push([kinds[which]!.label, w.map((ms) => fmtNum(ms)).join(', ')]));
    notes.push(`${slices} slices of ${seconds} s per githost at ${connections} connections on the web tree page, alternating which goes first; haproxy's stats CSV sampled every 250 ms during each (a check's duration is its last one's at the sample); ${rounds} SIGSTOPs of gateway 2 per githost, each 3 s into 14 s of the same load`);
    notes.push(`load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} on ${cpus().length} cores`);
  } catch (err) {
    notes.push(`replica checks failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    for (const b of busy) b.kill('SIGKILL');
    await Promise.all(services.map((s) => s.stop()));
    for (const c of cleanups) await c().catch(() => undefined);
    rmSync(src, { recursive: true, force: true });
    rmSync(wrapperDir, { recursive: true, force: true });
  }
  return {
    name: 'replica-checks',
    title: "Replicas: haproxy's checks of slow servers",
    tables: [
      ...(loadRows.length ? [{ title: 'Web tree page through haproxy, per check setting (same run, slices alternating)', header: ['haproxy checks', 'pages', 'pages/s', 'non-200', 'statuses', 'errors (cut, timed out)', 'checks failed', 'servers marked down', 'check time p50 / p99 / max (sampled)', 'partners marked down (pairings)'], rows: loadRows }] : []),
      ...(sectionRows.length ? [{ title: 'By section: checks failed, servers marked down, samples with every server of it out', header: ['haproxy checks', 'section', 'checks failed', 'marked down', 'samples all out'], rows: sectionRows }] : []),
      ...(bodyRows.length ? [{ title: 'What the failed pages said (most frequent first)', header: ['haproxy checks', 'pages', 'status and body'], rows: bodyRows }] : []),
      ...(hungRows.length ? [{ title: 'gateway 2 stopped (SIGSTOP) under load: ms until haproxy marked it down', header: ['haproxy checks', 'each round'], rows: hungRows }] : []),
    ],
    notes,
  };
}


/** The running haproxy of a githost (the launcher's child): its stats address and check settings, from its config file. */
function haproxyOf(service: RunningService): { url: string; checkLine: string; timeoutCheck: string | undefined } {
  for (const pid of descendants(service.pid)) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const f = args.indexOf('-f');
    if (!args[0]?.endsWith('haproxy') || f < 0) continue;
    const config = readFileSync(args[f + 1]!, 'utf8');
    const port = /listen stats\n {2}bind 127\.0\.0\.1:(\d+)/.exec(config)?.[1];
    if (!port) continue;
    return { url: `http://127.0.0.1:${port}/`, checkLine: /(check inter [^\n]*?) on-marked-down/.exec(config)?.[1] ?? '?', timeoutCheck: /timeout check [^\n]+/.exec(config)?.[0] };
  }
  throw new Error('no haproxy under the launcher');
}

/** readStats every `everyMs` until stopped; the samples taken. */
function sampleStats(url: string, everyMs: number): { stop: () => Promise<HaproxyStats[]> } {
  const samples: HaproxyStats[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      samples.push(await readHaproxyStats(url).catch(() => new Map()));
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** Resolves with the time `key`'s status first starts with `state` (polled every 50 ms). */
async function waitForState(url: string, key: string, state: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = (await readHaproxyStats(url).catch(() => new Map() as HaproxyStats)).get(key)?.status ?? '';
    if (status.startsWith(state)) return Date.now();
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${key} not ${state} within ${timeoutMs} ms`);
}

/** The web page at `connections` for `seconds`: answers by status, errors, and each non-200's status and body (first 160 characters). */
async function pageLoad(url: string, seconds: number, connections: number): Promise<{ answered: number; statuses: Record<string, number>; errors: number; bodies: Map<string, number> }> {
  const bodies = new Map<string, number>();
  const r = await autocannon({
    url,
    connections,
    duration: seconds,
    headers: { accept: 'text/html' },
    timeout: 30,
    requests: [
      {
        onResponse: (status: number, body: string) => {
          if (status === 200) return;
          const key = `${status} ${String(body ?? '').replace(/\s+/g, ' ').slice(0, 160)}`;
          bodies.set(key, (bodies.get(key) ?? 0) + 1);
        },
      },
    ],
  });
  const statuses = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]));
  return { answered: Object.values(statuses).reduce((n, c) => n + c, 0), statuses, errors: r.errors + r.timeouts, bodies };
}

/** The pairings' partner checks that marked a partner down so far (packages/api-client/src/partner-check.ts logs each). */
function partnerDowns(logFile: string): number {
  try {
    return readFileSync(logFile, 'utf8').split('\n').filter((l) => l.includes('paired partner failed its health checks')).length;
  } catch {
    return 0;
  }
}

function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}
