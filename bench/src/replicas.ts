import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
import { fmtMs, fmtNum, fmtRatio } from './stats.js';

/**
 * Replicas behind haproxy (docs/decisions/replicas.md) against one of each: browse API and web tree
 * page reads a second through two githosts started one after the other, both one process per
 * service on Postgres and RabbitMQ: one gateway with limits in memory, and GITHOST_REPLICAS=2 (two
 * gateways, two browse and web processes behind haproxy) with limits in the machine's Redis.
 * Measured in alternating slices so both see the same machine.
 */
export async function benchReplicas(ctx: BenchContext): Promise<Section> {
  const quick = ctx.quick;
  const notes: string[] = [];
  const rows: string[][] = [];
  const prefix = `githost-bench-replicas:${randomBytes(6).toString('hex')}:`;
  const skip = launcherMissing();
  const services: RunningService[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const src = mkdtempSync(join(workDir('data'), 'replicas-src-'));
  try {
    if (skip) throw new Error(skip);
    const limits = { GITHOST_RATE_LIMIT_PER_MINUTE: '100000000', GITHOST_RATE_LIMIT_ANON_PER_MINUTE: '100000000', GITHOST_GIT_RATE_LIMIT_PER_MINUTE: '100000000', GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE: '100000000' };
    const setup = async (name: string, extra: Record<string, string>): Promise<RunningService> => {
      const db = await createTestDatabase('githost_bench_replicas');
      const suffix = `${name}.${randomBytes(4).toString('hex')}`;
      const names = { GITHOST_EVENTS_EXCHANGE: `githost.events.bench.${suffix}`, GITHOST_WEBHOOKS_QUEUE: `githost.webhooks.bench.${suffix}`, GITHOST_MERGE_REQUESTS_QUEUE: `githost.merge-requests.bench.${suffix}`, GITHOST_ACCOUNTS_QUEUE: `githost.accounts.bench.${suffix}` };
      cleanups.push(async () => {
        await db.drop();
        await removeBrokerTopology(ctx.amqpUrl, names.GITHOST_EVENTS_EXCHANGE, [names.GITHOST_WEBHOOKS_QUEUE, names.GITHOST_MERGE_REQUESTS_QUEUE, names.GITHOST_ACCOUNTS_QUEUE]);
      });
      ctx.log(`replicas: starting githost (${name}) ...`);
      const service = await startService({ LOG_LEVEL: 'warn', DATABASE_URL: db.url, AMQP_URL: ctx.amqpUrl, GITHOST_PROCESS_PER_SERVICE: 'true', ...limits, ...names, ...extra });
      services.push(service);
      return service;
    };
    const one = await setup('one', { REDIS_URL: '', GITHOST_REPLICAS: '1' });
    const two = await setup('two', { REDIS_URL: MACHINE_REDIS_URL, GITHOST_RATE_LIMIT_PREFIX: prefix, GITHOST_REPLICAS: '2' });
    await git(['init', '-q', '-b', 'main', src]);
    for (let i = 0; i < 20; i++) writeFileSync(join(src, `file-${i}.txt`), `line ${i}\n`.repeat(50));
    await git(['add', '.'], { cwd: src });
    await git(['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'files'], { cwd: src });
    const targets: Array<Array<{ url: string; headers: Record<string, string> }>> = [];
    for (const service of [one, two]) {
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
    const slices = quick ? 2 : 4;
    for (const [kind, label] of [[0, 'browse API tree'], [1, 'web tree page']] as const) {
      for (const t of targets) await loadTest(t[kind]!.url, { connections: 50, seconds: 2, headers: t[kind]!.headers });
      const sums = [{ requests: 0, seconds: 0, p99: [] as number[], non200: 0 }, { requests: 0, seconds: 0, p99: [] as number[], non200: 0 }];
      for (let i = 0; i < slices; i++) {
        for (const which of i % 2 === 0 ? [0, 1] : [1, 0]) {
          const t = targets[which]![kind]!;
          const r = await loadTest(t.url, { connections: 50, seconds, headers: t.headers });
          sums[which]!.requests += r.rps * seconds;
          sums[which]!.seconds += seconds;
          sums[which]!.p99.push(r.p99);
          sums[which]!.non200 += Object.entries(r.statuses).filter(([code]) => code !== '200').reduce((n, [, c]) => n + c, 0) + r.errors;
        }
      }
      const rps = sums.map((s) => s.requests / s.seconds);
      rows.push(
        [label, 'one gateway, limits in memory', fmtNum(rps[0]), fmtMs(Math.max(...sums[0]!.p99)), String(sums[0]!.non200), '1.00x'],
        [label, '2 gateways + 2 browse/web behind haproxy, limits in Redis', fmtNum(rps[1]), fmtMs(Math.max(...sums[1]!.p99)), String(sums[1]!.non200), fmtRatio(rps[1], rps[0])],
      );
    }
    notes.push(`${slices} slices of ${seconds} s each per githost at 50 connections, alternating which goes first, after 2 s of unmeasured warm-up; target: replicas >= 0.8x one gateway`);
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
    tables: rows.length ? [{ title: 'Reads a second, one of each against replicas (same run)', header: ['read', 'githost', 'req/s', 'worst slice p99', 'non-200', 'vs one'], rows }] : [],
    notes,
  };
}
