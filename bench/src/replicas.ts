import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { removeBrokerTopology } from '@githost/bus/testing';
import { createTestDatabase } from '@githost/db';
import { MACHINE_REDIS_URL, removeRedisKeys } from '@githost/test-support';
import { Api, createRepo, createUser, gitUrl } from './api.js';
import type { BenchContext } from './context.js';
import { git } from './git.js';
import { fetchOnce, loadTest } from './load.js';
import { workDir } from './paths.js';
import type { Section } from './report.js';
import { launcherMissing, startService, type RunningService } from './service.js';
import { roundTripTimer, type RoundTrips } from './counter-round-trips.js';
import { fmtMs, fmtNum, fmtRatio } from './stats.js';
import { cpuMs, matchingPids } from './cpu.js';
import { descendants } from './rss.js';

/**
 * Replicas behind haproxy (docs/decisions/replicas.md) against one of each: browse API and web tree
 * page reads a second through three githosts started one after the other, each one process per
 * service on Postgres and RabbitMQ: one gateway with limits in memory; GITHOST_REPLICAS=2 (two
 * gateways and two of each service behind haproxy) with limits in memory; and the same with limits
 * in the machine's Redis. The middle one splits the cost: haproxy's hops and the extra processes
 * against the Redis counter. Measured in rotating slices so all see the same machine. And what one
 * limited request pays for its counter in Redis (the store's round trip from this process, one at a
 * time), with the machine idle and while the replicas are loaded.
 */
export async function benchReplicas(ctx: BenchContext): Promise<Section> {
  const quick = ctx.quick;
  const notes: string[] = [];
  const rows: string[][] = [];
  const counterRows: string[][] = [];
  const cpuRows: string[][] = [];
  const prefix = `githost-bench-replicas:${randomBytes(6).toString('hex')}:`;
  const skip = launcherMissing();
  const services: RunningService[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const src = mkdtempSync(join(workDir('data'), 'replicas-src-'));
  try {
    if (skip) throw new Error(skip);
    const limits = { GITHOST_RATE_LIMIT_PER_MINUTE: '100000000', GITHOST_RATE_LIMIT_ANON_PER_MINUTE: '100000000', GITHOST_GIT_RATE_LIMIT_PER_MINUTE: '100000000', GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE: '100000000' };
    const setup = async (name: string, extra: Record<string, string>, port?: number): Promise<RunningService> => {
      ctx.log(`replicas: starting githost (${name}) ...`);
      return startOwnGithost(ctx, 'githost_bench_replicas', name, { ...limits, ...extra }, { services, cleanups }, port);
    };
    const one = await setup('one', { REDIS_URL: '', GITHOST_REPLICAS: '1' });
    const twoMemory = await setup('two-memory', { REDIS_URL: '', GITHOST_REPLICAS: '2' });
    const two = await setup('two', { REDIS_URL: MACHINE_REDIS_URL, GITHOST_RATE_LIMIT_PREFIX: prefix, GITHOST_REPLICAS: '2' });
    const githosts = [one, twoMemory, two];
    const labels = ['one gateway, limits in memory', '2 gateways + 2 of each service behind haproxy, limits in memory', '2 gateways + 2 of each service behind haproxy, limits in Redis'];
    // BENCH_REPLICAS_WEB_VIA_BALANCER=1: a fourth githost as the third, unpaired
    // (GITHOST_REPLICAS_PAIRED=false): the gateways reach the web, and the web the API, through
    // haproxy instead of each its own partner (docs/decisions/replicas.md#the-webs-own-gateway):
    // what the pairing saves, in the same run.
    if (ctx.env.BENCH_REPLICAS_WEB_VIA_BALANCER === '1') {
      githosts.push(await setup('two-via-balancer', { REDIS_URL: MACHINE_REDIS_URL, GITHOST_RATE_LIMIT_PREFIX: prefix, GITHOST_REPLICAS: '2', GITHOST_REPLICAS_PAIRED: 'false' }));
      labels.push('the same, unpaired: gateway to web and web to API through haproxy (as before the pairing)');
    }
    await git(['init', '-q', '-b', 'main', src]);
    for (let i = 0; i < 20; i++) writeFileSync(join(src, `file-${i}.txt`), `line ${i}\n`.repeat(50));
    await git(['add', '.'], { cwd: src });
    await git(['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'files'], { cwd: src });
    const targets: Array<Array<{ url: string; headers: Record<string, string> }>> = [];
    for (const service of githosts) {
      const user = await createUser(new Api(service.url, service.adminToken), `rp${randomBytes(3).toString('hex')}`);
      await createRepo(user, 'small');
      await git(['push', '-q', gitUrl(service.url, user, 'small'), 'main'], { cwd: src, env: { GIT_TERMINAL_PROMPT: '0' } });
      const api = { url: `${service.url}/api/repos/${user.username}/small/tree/main`, headers: { authorization: `Bearer ${user.token}` } };
      const page = { url: `${service.url}/${user.username}/small`, headers: { accept: 'text/html' } };
      for (const t of [api, page]) {
        const check = await fetchOnce(t.url, t.headers);
        if (check.status !== 200) throw new Error(`${t.url} answered ${check.status}`);
      }
      targets.push([api, page]);
    }
    const seconds = quick ? 2 : 5;
    const slices = quick ? 3 : 6;
    const timer = await roundTripTimer({ url: MACHINE_REDIS_URL, prefix });
    cleanups.push(() => timer.close());
    const idleWindow = timer.window(0);
    await new Promise((r) => setTimeout(r, quick ? 2_000 : 5_000));
    const idle = await idleWindow.stop();
    const underLoad: RoundTrips[] = [];
    for (const [kind, label] of [[0, 'browse API tree'], [1, 'web tree page']] as const) {
      for (const t of targets) await loadTest(t[kind]!.url, { connections: 50, seconds: 2, headers: t[kind]!.headers });
      const sums = githosts.map(() => ({ requests: 0, seconds: 0, p99: [] as number[], non200: 0, cpu: new Map<string, number>() }));
      for (let i = 0; i < slices; i++) {
        // Each githost first, second and last in turn.
        for (let k = 0; k < githosts.length; k++) {
          const which = (i + k) % githosts.length;
          const t = targets[which]![kind]!;
          // While the Redis-backed replicas are loaded, what a counter's round trip costs then. The
          // timer runs during every githost's slices, kept only for those: its thread and its Redis
          // work are then the same load on the machine for all three rows.
          const timing = timer.window(5);
          const groups = cpuGroups(githosts[which]!);
          const before = groups.map((g) => cpuMs(g.pids));
          const r = await loadTest(t.url, { connections: 50, seconds, headers: t.headers });
          groups.forEach((g, n) => sums[which]!.cpu.set(g.name, (sums[which]!.cpu.get(g.name) ?? 0) + cpuMs(g.pids) - before[n]!));
          const timed = await timing.stop();
          if (which === 2) underLoad.push(timed);
          sums[which]!.requests += r.rps * seconds;
          sums[which]!.seconds += seconds;
          sums[which]!.p99.push(r.p99);
          sums[which]!.non200 += Object.entries(r.statuses).filter(([code]) => code !== '200').reduce((n, [, c]) => n + c, 0) + r.errors;
        }
      }
      const rps = sums.map((s) => s.requests / s.seconds);
      for (const [which, sum] of sums.entries()) {
        rows.push([label, labels[which]!, fmtNum(rps[which]), fmtMs(Math.max(...sum.p99)), String(sum.non200), fmtRatio(rps[which], rps[0]), which === 2 ? fmtRatio(rps[2], rps[1]) : '']);
        const perRequest = (name: string) => (sum.requests > 0 ? ((sum.cpu.get(name) ?? 0) * 1000) / sum.requests : 0);
        const total = CPU_COLUMNS.reduce((n, c) => n + perRequest(c), 0);
        cpuRows.push([label, labels[which]!, ...CPU_COLUMNS.map((c) => fmtNum(perRequest(c))), fmtNum(total)]);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    counterRows.push(
      ['githosts idle (the machine as the others load it), back to back', String(idle.summary.n), fmtMs(idle.summary.p50), fmtMs(idle.summary.p99), String(idle.local)],
      ['while the Redis-backed replicas serve 50 connections, one every 5 ms (median of the slices)', String(underLoad.reduce((n, x) => n + x.summary.n, 0)), fmtMs(median(underLoad.map((x) => x.summary.p50))), fmtMs(median(underLoad.map((x) => x.summary.p99))), String(underLoad.reduce((n, x) => n + x.local, 0))],
    );
    notes.push(`${slices} slices of ${seconds} s each per githost at 50 connections, rotating which goes first, after 2 s of unmeasured warm-up; target: replicas with limits in Redis >= 0.8x one gateway`);
    notes.push('"vs one" splits as haproxy + processes (the middle row) times Redis (its own column: the Redis row against the middle one)');
  } catch (err) {
    notes.push(`replicas comparison failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    for (const c of cleanups) await c().catch(() => undefined);
    rmSync(src, { recursive: true, force: true });
    removeRedisKeys(MACHINE_REDIS_URL, prefix);
  }
  return {
    name: 'replicas',
    title: 'Replicas behind haproxy',
    tables: [
      ...(rows.length ? [{ title: 'Reads a second, one of each against replicas (same run)', header: ['read', 'githost', 'req/s', 'worst slice p99', 'non-200', 'vs one', 'Redis vs memory'], rows }] : []),
      ...(cpuRows.length ? [{ title: 'CPU per request by process, µs (utime + stime over the measured slices; replicas of one service summed; Redis includes the bench timer\'s spends)', header: ['read', 'githost', ...CPU_COLUMNS, 'total'], rows: cpuRows }] : []),
      ...(counterRows.length ? [{ title: "One limited request's counter in Redis (rate-limit-redis's script through packages/rate-limits, timed in a worker thread of the bench)", header: ['when', 'samples', 'p50', 'p99', 'counted locally (> 250 ms)'], rows: counterRows }] : []),
    ],
    notes,
  };
}

/**
 * A githost of a replicas measurement, process per service, on a database and broker names of its
 * own: started into `held.services`, its database and broker topology removed by the cleanup it
 * adds to `held.cleanups`.
 */
export async function startOwnGithost(ctx: BenchContext, database: string, name: string, env: Record<string, string>, held: { services: RunningService[]; cleanups: Array<() => Promise<void>> }, port?: number): Promise<RunningService> {
  const db = await createTestDatabase(database);
  const suffix = `${name}.${randomBytes(4).toString('hex')}`;
  const names = { GITHOST_EVENTS_EXCHANGE: `githost.events.bench.${suffix}`, GITHOST_WEBHOOKS_QUEUE: `githost.webhooks.bench.${suffix}`, GITHOST_MERGE_REQUESTS_QUEUE: `githost.merge-requests.bench.${suffix}`, GITHOST_ACCOUNTS_QUEUE: `githost.accounts.bench.${suffix}` };
  held.cleanups.push(async () => {
    await db.drop();
    await removeBrokerTopology(ctx.amqpUrl, names.GITHOST_EVENTS_EXCHANGE, [names.GITHOST_WEBHOOKS_QUEUE, names.GITHOST_MERGE_REQUESTS_QUEUE, names.GITHOST_ACCOUNTS_QUEUE]);
  });
  const service = await startService({ LOG_LEVEL: 'warn', DATABASE_URL: db.url, AMQP_URL: ctx.amqpUrl, GITHOST_PROCESS_PER_SERVICE: 'true', ...names, ...env }, { port });
  held.services.push(service);
  return service;
}

const CPU_COLUMNS = ['gateway', 'web', 'browse', 'accounts', 'haproxy', 'Redis', 'other services'];

/** One githost's processes in CPU_COLUMNS' groups: replicas (`web 2`) with their first, haproxy
 *  (the launcher's child), the machine's Redis, and every other service process together. */
function cpuGroups(service: RunningService): Array<{ name: string; pids: number[] }> {
  const byName = processGroups(service, CPU_COLUMNS);
  byName.get('Redis')!.push(...matchingPids((c) => c.startsWith('redis-server')));
  return [...byName].map(([name, pids]) => ({ name, pids }));
}

/** The groups the partner checks' cost is read in: the pairings' two ends, the face, what a
 *  gateway's /readyz asks (accounts), haproxy, and the rest. */
const IDLE_COLUMNS = ['gateway', 'web', 'gitea-api', 'accounts', 'haproxy', 'other services'];

/**
 * What the pairings' partner checks cost (packages/api-client/src/partner-check.ts,
 * docs/decisions/replicas.md#a-partner-that-hangs): two idle githosts with 2 replicas each, one
 * paired (web N and gateway N check each other, the Gitea face its gateway, one /readyz a second
 * each) and one unpaired (GITHOST_REPLICAS_PAIRED=false: no partner checks, everything through
 * haproxy), read over the same windows so both see the same machine. haproxy's own checks run in
 * both. CPU milliseconds a second per process group; the difference is the checks'.
 */
export async function benchPartnerChecks(ctx: BenchContext): Promise<Section> {
  const notes: string[] = [];
  const rows: string[][] = [];
  const services: RunningService[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const skip = launcherMissing();
    if (skip) throw new Error(skip);
    const start = async (name: string, paired: boolean): Promise<RunningService> => {
      ctx.log(`partner checks: starting githost (${name}) ...`);
      return startOwnGithost(ctx, 'githost_bench_partner_checks', name, { REDIS_URL: '', GITHOST_REPLICAS: '2', GITHOST_REPLICAS_PAIRED: paired ? 'true' : 'false' }, { services, cleanups });
    };
    const paired = await start('paired', true);
    const unpaired = await start('unpaired', false);
    // Past the start's own work (the web and the face log their gateway down, then up).
    await new Promise((r) => setTimeout(r, 10_000));
    const seconds = ctx.quick ? 5 : 10;
    const windows = ctx.quick ? 3 : 6;
    const both = [paired, unpaired];
    const totals = both.map(() => new Map<string, number>());
    const loads: number[] = [];
    for (let i = 0; i < windows; i++) {
      const groups = both.map((s) => idleGroups(s));
      const before = groups.map((gs) => gs.map((g) => cpuMs(g.pids)));
      await new Promise((r) => setTimeout(r, seconds * 1000));
      groups.forEach((gs, k) => gs.forEach((g, n) => totals[k]!.set(g.name, (totals[k]!.get(g.name) ?? 0) + cpuMs(g.pids) - before[k]![n]!)));
      loads.push(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]));
    }
    const perSecond = (k: number, name: string) => (totals[k]!.get(name) ?? 0) / (windows * seconds);
    const sum = (k: number) => IDLE_COLUMNS.reduce((n, c) => n + perSecond(k, c), 0);
    rows.push(['paired (partner checks on)', ...IDLE_COLUMNS.map((c) => fmtNum(perSecond(0, c))), fmtNum(sum(0))]);
    rows.push(['unpaired (no partner checks)', ...IDLE_COLUMNS.map((c) => fmtNum(perSecond(1, c))), fmtNum(sum(1))]);
    rows.push(['difference: the checks', ...IDLE_COLUMNS.map((c) => fmtNum(perSecond(0, c) - perSecond(1, c))), fmtNum(sum(0) - sum(1))]);
    // Five pairings check once a second: web 1 and 2 their gateway, gateway 1 and 2 their web, the face gateway 1.
    const checksPerSecond = 5;
    notes.push(`${windows} windows of ${seconds} s, both githosts idle and read over the same windows; load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} on ${cpus().length} cores`);
    notes.push(`${checksPerSecond} partner checks a second in the paired githost: ${fmtNum(((sum(0) - sum(1)) * 1000) / checksPerSecond)} µs of CPU per check, both ends and what /readyz asks included; ${fmtNum(((sum(0) - sum(1)) / 1000) * 100)}% of one core`);
  } catch (err) {
    notes.push(`partner checks measurement failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    for (const c of cleanups) await c().catch(() => undefined);
  }
  return {
    name: 'replicas-partner-checks',
    title: 'Replicas: what the partner checks cost',
    tables: rows.length ? [{ title: 'CPU ms a second by process group, idle (utime + stime; replicas of one service summed)', header: ['githost', ...IDLE_COLUMNS, 'total'], rows }] : [],
    notes,
  };
}

/** One githost's processes in IDLE_COLUMNS' groups (replicas with their first; haproxy, the launcher's child). */
function idleGroups(service: RunningService): Array<{ name: string; pids: number[] }> {
  return [...processGroups(service, IDLE_COLUMNS)].map(([name, pids]) => ({ name, pids }));
}

/** The service processes by column (a replica `web 2` with `web`, a name without a column in
 *  `other services`), and haproxy (the launcher's child) in its column. */
function processGroups(service: RunningService, columns: string[]): Map<string, number[]> {
  const byName = new Map<string, number[]>(columns.map((c) => [c, []]));
  for (const p of service.processes) {
    if (p.name === 'launcher') continue;
    const name = p.name.replace(/ \d+$/, '');
    byName.get(byName.has(name) ? name : 'other services')!.push(p.pid);
  }
  for (const pid of descendants(service.pid)) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'haproxy') byName.get('haproxy')!.push(pid);
    } catch {
      // gone
    }
  }
  return byName;
}
