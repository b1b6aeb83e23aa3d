import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import client from 'prom-client';
import { BUDGETS, createLimitStores } from '@githost/rate-limits';
import { MACHINE_REDIS_URL, removeRedisKeys } from '@githost/test-support';
import { Api, createRepo, createUser, gitUrl } from './api.js';
import type { BenchContext } from './context.js';
import { git } from './git.js';
import { fetchOnce, loadTest } from './load.js';
import { workDir } from './paths.js';
import type { Section } from './report.js';
import { launcherMissing, startService, type RunningService } from './service.js';
import { fmtMs, fmtNum, fmtRatio, nowMs, summarize } from './stats.js';

/**
 * Rate limits in Redis against in memory (docs/decisions/shared-rate-limits.md): what one limited
 * request pays for its counter (the store's round trip, sequential, from this process), and
 * browse reads a second through two githosts started side by side, one counting in memory and one
 * in the machine's Redis, measured in alternating slices so both see the same machine.
 */
async function localCounts(registry: client.Registry): Promise<number> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith('githost_bench_rate_limit_local_counts_total '));
  return line ? Number(line.split(' ')[1]) : 0;
}

export async function benchRateLimits(ctx: BenchContext): Promise<Section> {
  const quick = ctx.quick;
  const notes: string[] = [];
  const prefix = `githost-bench:${randomBytes(6).toString('hex')}:`;
  const count = quick ? 2_000 : 10_000;

  const roundTrip = [];
  for (const [mode, url] of [['memory', undefined], ['Redis', MACHINE_REDIS_URL]] as const) {
    const registry = new client.Registry();
    const stores = createLimitStores({ url, prefix, service: 'bench', registry });
    try {
      // Until Redis has answered (a slow first answer on a busy machine falls back for a second).
      const deadline = Date.now() + 30_000;
      for (let i = 0; i < 200 || (url && !stores.sharedNow && Date.now() < deadline); i++) await stores.spend(BUDGETS.apiToken, `token:warm${i % 10}`, 1_000_000);
      const localBefore = await localCounts(registry);
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const start = nowMs();
        await stores.spend(BUDGETS.apiToken, `token:t${i % 100}`, 1_000_000);
        times.push(nowMs() - start);
      }
      const local = (await localCounts(registry)) - localBefore;
      roundTrip.push({ mode, summary: summarize(times), local: url ? String(local) : '—' });
    } finally {
      await stores.close();
    }
  }

  const rows: string[][] = [];
  const skip = launcherMissing();
  const services: RunningService[] = [];
  const src = mkdtempSync(join(workDir('data'), 'rate-limits-src-'));
  try {
    if (skip) notes.push(`browse comparison skipped: ${skip}`);
    else {
      const limits = { GITHOST_RATE_LIMIT_PER_MINUTE: '100000000', GITHOST_RATE_LIMIT_ANON_PER_MINUTE: '100000000', GITHOST_GIT_RATE_LIMIT_PER_MINUTE: '100000000', GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE: '100000000' };
      const base = { LOG_LEVEL: 'warn', DATABASE_URL: '', AMQP_URL: '', GITHOST_PROCESS_PER_SERVICE: 'false', ...limits };
      ctx.log('rate-limits: starting two githosts (memory, Redis) ...');
      // One after the other: two starting at once on a busy machine overran the start-up deadline.
      const memory = await startService({ ...base, REDIS_URL: '' });
      services.push(memory);
      const redis = await startService({ ...base, REDIS_URL: MACHINE_REDIS_URL, GITHOST_RATE_LIMIT_PREFIX: prefix });
      services.push(redis);
      await git(['init', '-q', '-b', 'main', src]);
      for (let i = 0; i < 20; i++) writeFileSync(join(src, `file-${i}.txt`), `line ${i}\n`.repeat(50));
      await git(['add', '.'], { cwd: src });
      await git(['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'files'], { cwd: src });
      const targets = [];
      for (const service of [memory, redis]) {
        const user = await createUser(new Api(service.url, service.adminToken), `rl${randomBytes(3).toString('hex')}`);
        await createRepo(user, 'small');
        await git(['push', '-q', gitUrl(service.url, user, 'small'), 'main'], { cwd: src, env: { GIT_TERMINAL_PROMPT: '0' } });
        const url = `${service.url}/api/repos/${user.username}/small/tree/main`;
        const check = await fetchOnce(url, { authorization: `Bearer ${user.token}` });
        if (check.status !== 200 || check.headers['ratelimit-limit'] === undefined) throw new Error(`tree answered ${check.status} (RateLimit-Limit ${String(check.headers['ratelimit-limit'])})`);
        targets.push({ url, headers: { authorization: `Bearer ${user.token}` } });
      }
      const seconds = quick ? 2 : 5;
      const slices = quick ? 4 : 6;
      for (const t of targets) await loadTest(t.url, { connections: 50, seconds: 2, headers: t.headers });
      const sums = [{ requests: 0, seconds: 0, p99: [] as number[], non200: 0 }, { requests: 0, seconds: 0, p99: [] as number[], non200: 0 }];
      for (let i = 0; i < slices; i++) {
        for (const which of i % 2 === 0 ? [0, 1] : [1, 0]) {
          const r = await loadTest(targets[which]!.url, { connections: 50, seconds, headers: targets[which]!.headers });
          sums[which]!.requests += r.rps * seconds;
          sums[which]!.seconds += seconds;
          sums[which]!.p99.push(r.p99);
          sums[which]!.non200 += Object.entries(r.statuses).filter(([code]) => code !== '200').reduce((n, [, c]) => n + c, 0) + r.errors;
        }
      }
      const rps = sums.map((s) => s.requests / s.seconds);
      rows.push(
        ['memory (no REDIS_URL)', fmtNum(rps[0]), fmtMs(Math.max(...sums[0]!.p99)), String(sums[0]!.non200), '1.00x'],
        ['Redis (REDIS_URL, machine redis-server)', fmtNum(rps[1]), fmtMs(Math.max(...sums[1]!.p99)), String(sums[1]!.non200), fmtRatio(rps[1], rps[0])],
      );
      notes.push(
        `browse: GET /api/repos/{owner}/small/tree/main with a token (20 files), ${slices} slices of ${seconds} s each at 50 connections, alternating which githost goes first, after 2 s of unmeasured warm-up each; both githosts all in one process, PGlite, limits on (every answer counted and carrying RateLimit headers) but never reached`,
      );
    }
  } catch (err) {
    // The round trip above stands on its own: a browse comparison that fails (a start overrunning
    // its deadline on a busy machine) is a note, not the loss of the part.
    notes.push(`browse comparison failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    rmSync(src, { recursive: true, force: true });
    removeRedisKeys(MACHINE_REDIS_URL, prefix);
  }
  return {
    name: 'rate-limits',
    title: 'Rate limits in Redis',
    tables: [
      {
        title: `Counter round trip per limited request (${count.toLocaleString('en-US')} sequential spends from the bench process)`,
        header: ['store', 'p50', 'p99', 'max', 'counted locally (Redis slower than 250 ms)'],
        rows: roundTrip.map((r) => [r.mode, fmtMs(r.summary.p50), fmtMs(r.summary.p99), fmtMs(r.summary.max), r.local]),
      },
      ...(rows.length ? [{ title: 'Browse reads a second, limits in memory against in Redis (same run)', header: ['githost', 'req/s', 'worst slice p99', 'non-200', 'vs memory'], rows }] : []),
    ],
    notes,
  };
}
