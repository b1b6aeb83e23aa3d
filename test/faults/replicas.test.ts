/**
 * Fault injection with replicas (docs/decisions/replicas.md#faults): two gateways behind Debian's
 * haproxy, two of each of accounts, browse, web, merge-requests and webhooks, two git-storage
 * shards, on the real Postgres and RabbitMQ and a Redis of this file's own, under the fault run's
 * workload (pushes, merges, API and page reads, webhooks; workload.ts). Redis stops for 10 s, then
 * one replica of each service is killed with SIGKILL in turn. Checked as in faults.test.ts
 * (checks.ts): nothing lost, nothing stuck, repositories sound; and here, no 5xx once haproxy took
 * a killed replica out, and one shared budget again once Redis is back. The launcher restarts no
 * replica (the survivors serve), so the kills come last.
 *
 * Sizes: FAULTS_MODE=quick (the default, part of `npm test`), full (`npm run faults`), big.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startOwnRedis, startReceiver, type OwnRedis, type Receiver } from '@githost/test-support';
import { startTestGithost, type TestGithost } from '../src/support/index.js';
import { MERGE_RECOVERY_MS, MODE, printTable, scenarioTimeout, sizeOf, staleOpenIntents, verify, type CheckTarget, type Fault, type Figures } from './checks.js';
import { sleep } from './cluster.js';
import { Workload, type PublicAddress, type User } from './workload.js';

const SIZE = sizeOf({ pushes: 60, merges: 4 });
const PUSHERS = 3;
/** Long enough for a gateway's idle lease to go back to Redis (idle 1 s, swept every 1 s). */
const LEASES_GIVEN_BACK_MS = 3_000;
/** Load kept on the survivors after haproxy took a killed replica out, before the next kill. */
const AFTER_DOWN_MS = 2_000;
const SCENARIO_MS = scenarioTimeout(300_000);

/** Each victim's process name and its servers in haproxy (`<section>/<server>`). */
const VICTIMS: ReadonlyArray<{ process: string; servers: string[] }> = [
  { process: 'gateway 2', servers: ['gateway/gateway-2'] },
  { process: 'accounts 2', servers: ['accounts/accounts-2', 'accounts-grpc/accounts-grpc-2'] },
  { process: 'browse 2', servers: ['browse/browse-2'] },
  { process: 'web 2', servers: ['web/web-2'] },
  { process: 'merge-requests 2', servers: ['merge-requests/merge-requests-2'] },
  { process: 'webhooks 2', servers: ['webhooks/webhooks-2'] },
];

interface KillFigures {
  victim: string;
  /** From SIGKILL to haproxy showing every server of the victim DOWN. */
  downMs: number;
  fiveXx: number;
  /** From SIGKILL to the last 5xx before the next kill; null: none. */
  last5xxMs: number | null;
  /** 5xx answered after haproxy took the victim out (must be 0). */
  after: number;
}

const results: Figures[] = [];
const kills: KillFigures[] = [];
const notes: string[] = [];
let redis: OwnRedis;
let gh: TestGithost;
let receiver: Receiver;
let user: User;
let entry: PublicAddress;

beforeAll(async () => {
  redis = await startOwnRedis();
  // Webhook retries as in the fault run: a delivery that failed while a replica died comes again soon.
  gh = await startTestGithost({ backend: 'real', replicas: 2, shards: 2, env: { REDIS_URL: redis.url, GITHOST_WEBHOOK_RETRY_BASE_MS: '200', GITHOST_WEBHOOK_MAX_ATTEMPTS: '20' } });
  entry = { url: gh.url, publicPort: gh.port };
  receiver = await startReceiver({ answer: (_n, res) => void res.writeHead(204).end() });
  user = await makeUser('faults');
}, 300_000);

afterAll(async () => {
  printTable(`fault injection with replicas, mode ${MODE} (${SIZE.pushes} pushes, ${SIZE.merges} merges per scenario)`, results);
  printKills(kills);
  if (notes.length) process.stdout.write(`${notes.join('\n')}\n`);
  await gh?.stop();
  await receiver?.close();
  await redis?.stop();
}, 120_000);

async function makeUser(username: string): Promise<User> {
  const admin = { authorization: `Bearer ${gh.adminToken}`, 'content-type': 'application/json' };
  const made = await fetch(`${gh.url}/api/admin/users`, { method: 'POST', headers: admin, body: JSON.stringify({ username, email: `${username}@example.com` }) });
  if (made.status !== 201) throw new Error(`admin user: ${made.status} ${await made.text()}`);
  const token = (await (await fetch(`${gh.url}/api/admin/users/${username}/tokens`, { method: 'POST', headers: admin, body: JSON.stringify({ name: username }) })).json()) as { token: string };
  return { username, token: token.token };
}

/** haproxy's view of each server: `<section>/<server>` -> UP, DOWN, ... A `<section>-writes`
 *  backend's servers track the section's (launcher/src/replicas.ts): the same state, left out. */
async function serverStates(): Promise<Map<string, string>> {
  const csv = await (await fetch(`${gh.haproxyStatsUrl!};csv`)).text();
  const rows = csv.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split(','));
  return new Map(rows.filter((r) => r[1] !== 'FRONTEND' && r[1] !== 'BACKEND' && !r[0]!.endsWith('-writes')).map((r) => [`${r[0]}/${r[1]}`, r[17] ?? '']));
}

/** Waits until haproxy has every server UP but those killed on purpose (the survivors ready by
 *  themselves); returns those that were not within `withinMs`. */
async function waitUp(except: string[], withinMs: number): Promise<string[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const states = await serverStates();
    const notUp = [...states].filter(([k, v]) => !except.includes(k) && !v.startsWith('UP')).map(([k, v]) => `${k} ${v}`);
    if (notUp.length === 0 || Date.now() > deadline) return notUp;
    await sleep(250);
  }
}

/** Runs the workload, injects `fault` once `trigger` holds, then checks everything. */
async function scenario(name: string, fault: (w: Workload) => Promise<Fault>, killed: string[]): Promise<Figures> {
  const w = new Workload(entry, user, { scenario: name, pushes: SIZE.pushes, merges: SIZE.merges, pushers: PUSHERS, pages: true });
  await w.setUp(receiver);
  let faultOver!: () => void;
  // Pushes and merges go on until the fault is over, however many the size asks for.
  const running = w.run(new Promise<void>((r) => (faultOver = r)));
  let failed: unknown;
  running.catch((err: unknown) => (failed = err));
  while (w.pushesDone < SIZE.pushes * 0.1 && !failed) await sleep(20);
  const f = await fault(w).finally(() => faultOver());
  const stuck = sleep(Math.max(0, f.end + MERGE_RECOVERY_MS - Date.now())).then(() => staleOpenIntents(gh.databaseUrl!));
  const notReady = await waitUp(killed, 60_000);
  const recoveredAt = Date.now();
  await running;
  const target: CheckTarget = { receiver, user, databaseUrl: gh.databaseUrl!, reposRoot: gh.dataDir };
  const figures = await verify(target, name, w, f, notReady, recoveredAt, stuck);
  results.push(figures);
  return figures;
}

const metricValue = async (port: number, name: string): Promise<number | undefined> => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line === undefined ? undefined : Number(line.split(' ').pop());
};

/** `RateLimit-Remaining` of one API read by `who` on one gateway. */
const remaining = async (gateway: string, who: User): Promise<number> => {
  const res = await fetch(`${gateway}/api/user`, { headers: { authorization: `Bearer ${who.token}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET /api/user on ${gateway}: ${res.status}`);
  return Number(res.headers.get('ratelimit-remaining'));
};

describe('fault injection with replicas', () => {
  it('Redis stopped for 10 s under load: no 5xx, nothing lost, and once it is back a budget spent on one gateway shows on the other', async () => {
    const [one, two] = gh.gatewayUrls!;
    const gatewayMetrics = [gh.metricsPorts!.gateway!, gh.metricsPorts!['gateway 2']!];
    const budget = await makeUser('budget');
    let spentOnOne = 0;
    let seenOnTwo = 0;
    const f = await scenario('redis-stop', async () => {
      const problems: string[] = [];
      const at = Date.now();
      await redis.stop();
      await sleep(10_000);
      for (const port of gatewayMetrics) if ((await metricValue(port, 'githost_gateway_rate_limit_store_up')) !== 0) problems.push(`the gateway on metrics port ${port} did not notice Redis was down`);
      await redis.start();
      const end = Date.now();
      // Shared again once each gateway's next try reached Redis (within a second of its answering).
      const until = Date.now() + 30_000;
      for (const port of gatewayMetrics) {
        while (Date.now() < until && (await metricValue(port, 'githost_gateway_rate_limit_store_up')) !== 1) {
          await remaining(port === gatewayMetrics[0] ? one! : two!, budget);
          await sleep(200);
        }
        if ((await metricValue(port, 'githost_gateway_rate_limit_store_up')) !== 1) problems.push(`the gateway on metrics port ${port} did not count in Redis again within 30 s`);
      }
      notes.push(`redis-stop: both gateways count in Redis again ${Date.now() - end} ms after it came back`);
      // The waits above left each gateway holding a lease of the budget, taken in either order:
      // the other's spends do not show on a held lease. Both are given back once idle (a second,
      // swept each second: LEASE_IDLE_MS in packages/rate-limits), so the reads below start with none.
      await sleep(LEASES_GIVEN_BACK_MS);
      // Five reads on one gateway, then one on the other: a shared counter shows them; two counts
      // in memory would show only the other's own.
      const first = await remaining(one!, budget);
      for (let i = 0; i < 4; i++) await remaining(one!, budget);
      spentOnOne = 5;
      seenOnTwo = first - (await remaining(two!, budget));
      // Any 5xx from the stop on is a problem: a limiter's store is never worth an error.
      return { at, end, problems, fiveXxUntil: at };
    }, []);
    expect(f.problems).toEqual([]);
    expect(f.lost).toBe(0);
    // The read on the other gateway is one more; -1 for a spend Redis answered slower than 250 ms
    // (counted in that gateway's memory, docs/decisions/shared-rate-limits.md#when-redis-is-down).
    // The first gateway's lease shows on the other as taken before it is spent: up to a lease
    // more (leaseSize of the cluster's 1,000,000 a minute, packages/rate-limits; docs/decisions/shared-rate-limits.md#leases).
    const lease = 64;
    expect(seenOnTwo).toBeGreaterThanOrEqual(spentOnOne - 1);
    expect(seenOnTwo).toBeLessThanOrEqual(spentOnOne + lease + 1);
  }, SCENARIO_MS);

  it('one replica of each service killed with SIGKILL in turn under load: nothing lost or stuck, and no 5xx once haproxy took it out', async () => {
    const marks: Array<{ victim: string; at: number; down: number }> = [];
    let load: Workload | undefined;
    const f = await scenario('kill-replicas', async (w) => {
      load = w;
      const problems: string[] = [];
      for (const victim of VICTIMS) {
        const proc = gh.processes!.find((p) => p.name === victim.process);
        if (!proc) throw new Error(`no process ${victim.process}: ${gh.processes!.map((p) => p.name).join(', ')}`);
        const at = Date.now();
        process.kill(proc.pid, 'SIGKILL');
        let down = 0;
        while (!down && Date.now() - at < 30_000) {
          const states = await serverStates();
          if (victim.servers.every((s) => states.get(s)?.startsWith('DOWN'))) down = Date.now();
          else await sleep(50);
        }
        if (!down) problems.push(`haproxy did not take ${victim.process} out within 30 s`);
        marks.push({ victim: victim.process, at, down: down || Date.now() });
        await sleep(AFTER_DOWN_MS);
      }
      // checks.ts counts any 5xx after the last victim was out; each kill's own window is below.
      return { at: marks[0]!.at, end: Date.now(), problems, fiveXxUntil: marks[marks.length - 1]!.down };
    }, VICTIMS.flatMap((v) => v.servers));
    // A kill's 5xx are those answered from it to the next kill; none may come after haproxy took it out.
    const fiveXx = load!.answers.filter((a) => a.status >= 500);
    for (const [i, m] of marks.entries()) {
      const next = marks[i + 1]?.at ?? Infinity;
      const mine = fiveXx.filter((a) => a.at >= m.at && a.at < next);
      kills.push({ victim: m.victim, downMs: m.down - m.at, fiveXx: mine.length, last5xxMs: mine.length ? mine[mine.length - 1]!.at - m.at : null, after: mine.filter((a) => a.at > m.down).length });
    }
    expect(f.problems).toEqual([]);
    expect(f.lost).toBe(0);
    expect(kills.map((k) => [k.victim, k.after])).toEqual(VICTIMS.map((v) => [v.process, 0]));
  }, SCENARIO_MS);
});

function printKills(rows: KillFigures[]): void {
  if (rows.length === 0) return;
  const head = ['killed (SIGKILL)', 'kill to out of haproxy ms', '5xx', 'kill to last 5xx ms', '5xx after out'];
  const lines = rows.map((r) => [r.victim, r.downMs, r.fiveXx, r.last5xxMs ?? '-', r.after].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(`${['replicas killed in turn', fmt(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(fmt)].join('\n')}\n`);
}
