/**
 * Fault injection (docs/operating.md#failure-and-recovery): githost as deployed, one process
 * per service on the real Postgres and RabbitMQ, while pushes and merges run. Each scenario kills
 * or stops something mid-stream, lets it come back as Kubernetes would, then checks that no event
 * was lost, no merge request is stuck, the repositories are sound, every service is ready again
 * by itself, and clients saw no 5xx after the documented recovery window. The figures of every
 * scenario are printed as a table (and written to FAULTS_RESULTS as JSON when set).
 *
 * Sizes: FAULTS_MODE=quick (the default, part of `npm test`), full (`npm run faults`), big.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase } from '@githost/db';
import { startReceiver, type Receiver } from '@githost/test-support';
import { removeBrokerTopology } from '@githost/bus/testing';
import { git, gitResult, makeWorkdir, removeWorkdirs } from '../src/support/git.js';
import { Cluster, SERVICES, sleep, type ServiceName } from './cluster.js';
import { Workload, type User } from './workload.js';

const run = promisify(execFile);

const SIZES = {
  quick: { pushes: 40, merges: 3 },
  full: { pushes: 200, merges: 10 },
  big: { pushes: 2000, merges: 30 },
} as const;
const MODE = (process.env.FAULTS_MODE ?? 'quick') as keyof typeof SIZES;
const SIZE = SIZES[MODE] ?? SIZES.quick;
const PUSHERS = 3;

/** The documented recovery windows (docs/operating.md#failure-and-recovery): no 5xx later than this after
 *  the fault ended (the service restarted, the broker or the database up again). */
const RECOVERY_WINDOW_MS = 15_000;
/** A merge intent whose process died is finished within 10 s grace + one 2 s tick. */
const MERGE_RECOVERY_MS = 12_000;
/** A client whose upstream died gets an error within this. */
const CLIENT_ERROR_MS = 2_000;
const DELIVERY_WAIT_MS = 90_000;

interface Figures {
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
  mergeHeldMs: number;
  clientErrorMs: string;
  problems: string[];
}

const results: Figures[] = [];
let cluster: Cluster;
let receiver: Receiver;
let user: User;
let database: { url: string; drop(): Promise<void> };
let root: string;
const amqpUrl = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
const suffix = `${process.pid}.${randomBytes(4).toString('hex')}`;
const names = { exchange: `githost.events.faults.${suffix}`, webhooksQueue: `githost.webhooks.faults.${suffix}`, mergeRequestsQueue: `githost.merge-requests.faults.${suffix}`, accountsQueue: `githost.accounts.faults.${suffix}` };

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'githost-faults-'));
  database = await createTestDatabase('githost_faults');
  cluster = new Cluster({ dataDir: root, databaseUrl: database.url, amqpUrl, ...names });
  await cluster.init();
  await cluster.startAll();
  const notReady = await cluster.waitAllReady(60_000);
  if (notReady.length) throw new Error(`not ready:\n${notReady.join('\n')}`);
  receiver = await startReceiver({ answer: (_n, res) => void res.writeHead(204).end() });
  const admin = { authorization: `Bearer ${cluster.adminToken}`, 'content-type': 'application/json' };
  const made = await fetch(`${cluster.url}/api/admin/users`, { method: 'POST', headers: admin, body: JSON.stringify({ username: 'faults', email: 'faults@example.com' }) });
  if (made.status !== 201) throw new Error(`admin user: ${made.status} ${await made.text()}`);
  const token = (await (await fetch(`${cluster.url}/api/admin/users/faults/tokens`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'faults' }) })).json()) as { token: string };
  user = { username: 'faults', token: token.token };
}, 180_000);

afterAll(async () => {
  // Whatever happened, the shared broker and database are left running.
  await run('rabbitmqctl', ['start_app']).catch(() => undefined);
  await ensurePostgres();
  printTable(results);
  if (process.env.FAULTS_RESULTS) writeFileSync(process.env.FAULTS_RESULTS, JSON.stringify({ mode: MODE, size: SIZE, results }, null, 2));
  await cluster?.stop();
  await receiver?.close();
  await database?.drop().catch(() => undefined);
  await removeBrokerTopology(amqpUrl, names.exchange, [names.webhooksQueue, names.mergeRequestsQueue, names.accountsQueue]).catch(() => undefined);
  removeWorkdirs();
  if (!process.env.FAULTS_KEEP) rmSync(root, { recursive: true, force: true });
}, 120_000);

interface Fault {
  /** When the fault began and when it ended (the restart began, the broker came back). */
  at: number;
  end: number;
  clientErrorMs?: string;
  problems?: string[];
}

/** Runs the workload, injects `fault` once `trigger` holds, then checks everything. */
async function scenario(name: string, fault: (w: Workload) => Promise<Fault>, trigger: (w: Workload) => boolean = (w) => w.pushesDone >= SIZE.pushes * 0.3): Promise<Figures> {
  const w = new Workload(cluster, user, { scenario: name, pushes: SIZE.pushes, merges: SIZE.merges, pushers: PUSHERS });
  await w.setUp(receiver);
  const running = w.run();
  let failed: unknown;
  running.catch((err: unknown) => (failed = err));
  while (!trigger(w) && !failed) await sleep(20);
  const f = await fault(w);
  // Stuck: an open merge request whose intent nobody refreshed for a while, once recovery had its time.
  const stuck = sleep(Math.max(0, f.end + MERGE_RECOVERY_MS - Date.now())).then(() => staleOpenIntents());
  const ready = await cluster.waitAllReady(60_000);
  const recoveredAt = Date.now();
  await running;
  const figures = await verify(name, w, f, ready, recoveredAt, stuck);
  results.push(figures);
  return figures;
}

async function verify(name: string, w: Workload, f: Fault, notReady: string[], recoveredAt: number, stuck: Promise<number>): Promise<Figures> {
  const problems = [...w.violations, ...(f.problems ?? [])];
  if (notReady.length) problems.push(`not ready by itself within 60 s: ${notReady.join(', ')}`);
  const key = (ref: string, sha: string) => `${ref} ${sha}`;
  const expected = new Set(w.pushes.filter((p) => p.ok).map((p) => `${p.repo}|${key(p.ref, p.sha)}`));
  const merged = w.merges.filter((m) => m.merged);
  const got = () => receiver.received.filter((d) => d.path === `/${name}`);
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
    const now = await w.call<{ state: string }>('GET', `/api/repos/${user.username}/${w.mergeRepo}/merge-requests/${m.number}`);
    if ((now.body.state === 'merged') !== contained) problems.push(`!${m.number} reads ${now.body.state} but main ${contained ? 'contains' : 'lacks'} its source tip`);
  }
  const stale = await stuck;
  if (stale !== 0) problems.push(`${stale} open merge requests held a merge intent not refreshed for 3 s, ${MERGE_RECOVERY_MS / 1000} s after the fault ended`);
  const intentsLeft = await staleOpenIntents(0);
  if (intentsLeft !== 0) problems.push(`${intentsLeft} open merge requests still hold a merge intent at the end`);
  problems.push(...(await fsckAll()));
  const fiveXx = w.answers.filter((a) => a.status >= 500 && a.at >= f.at);
  const lastLate = fiveXx.filter((a) => a.at > f.end + RECOVERY_WINDOW_MS);
  if (lastLate.length) problems.push(`${lastLate.length} answers >= 500 later than ${RECOVERY_WINDOW_MS / 1000} s after the fault ended, e.g. ${lastLate[0]!.status} to ${lastLate[0]!.what} at +${lastLate[0]!.at - f.end} ms`);
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
    mergeHeldMs: Math.max(0, ...w.merges.map((m) => m.heldMs)),
    clientErrorMs: f.clientErrorMs ?? '-',
    problems,
  };
}

/** Open merge requests whose merge intent was not refreshed for `idleS` seconds (the process
 *  merging refreshes it every 2 s); -1 when the database could not be asked. */
async function staleOpenIntents(idleS = 3): Promise<number> {
  try {
    const sql = `SELECT count(*) FROM merge_requests.merge_intents i JOIN merge_requests.merge_requests m ON m.id = i.mr_id WHERE m.state = 'open' AND i.updated_at < clock_timestamp() - interval '${idleS} seconds'`;
    const { stdout } = await run('psql', [database.url, '-Atc', sql]);
    return Number(stdout.trim());
  } catch {
    return -1;
  }
}

/** Every bare repository under git-storage's data dir. */
function repositories(dir = path.join(cluster.dataDirOf('git-storage'), 'repos')): string[] {
  if (!existsSync(dir)) return [];
  if (existsSync(path.join(dir, 'HEAD')) && existsSync(path.join(dir, 'objects'))) return [dir];
  return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).flatMap((e) => repositories(path.join(dir, e.name)));
}

async function fsckAll(): Promise<string[]> {
  const problems: string[] = [];
  for (const repo of repositories()) {
    const r = await gitResult(repo, '--git-dir', repo, 'fsck', '--no-progress', '--no-dangling');
    if (r.code !== 0) problems.push(`git fsck ${path.basename(repo)}: ${r.stderr.trim().split('\n').slice(0, 3).join(' | ')}`);
  }
  return problems;
}

/** Leftover quarantines and temporary packs of pushes, by repository. */
function leftovers(): string[] {
  return repositories().flatMap((repo) => [
    ...readdirSync(path.join(repo, 'objects')).filter((n) => n.startsWith('tmp_objdir-')).map((n) => path.join(repo, 'objects', n)),
    ...(existsSync(path.join(repo, 'objects', 'pack')) ? readdirSync(path.join(repo, 'objects', 'pack')).filter((n) => n.startsWith('tmp_')).map((n) => path.join(repo, 'objects', 'pack', n)) : []),
  ]);
}

/** kill -9, then the restart Kubernetes does (the pod's container started again). */
async function killAndRestart(name: ServiceName): Promise<Fault> {
  const at = Date.now();
  await cluster.kill(name);
  await sleep(1000);
  const end = Date.now();
  await cluster.start(name);
  return { at, end };
}

async function ensurePostgres(): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if ((await run('pg_isready', ['-h', '127.0.0.1', '-p', '5432', '-q']).then(() => true, () => false))) return;
    if (i === 0 || i === 20) await run('pg_ctlcluster', ['--skip-systemctl-redirect', versionOfPostgres(), 'main', 'start']).catch(() => undefined);
    await sleep(500);
  }
}

function versionOfPostgres(): string {
  return readdirSync('/etc/postgresql')[0] ?? '';
}

function printTable(rows: Figures[]): void {
  if (rows.length === 0) return;
  const head = ['scenario', 'produced', 'delivered', 'lost', 'dups', 'redeliv', 'recovery ms', '5xx', '5xx window ms', 'last 5xx after end ms', 'no answer', 'merge held ms', 'client error ms', 'problems'];
  const lines = rows.map((r) => [r.scenario, r.produced, r.delivered, r.lost, r.duplicates, r.redeliveries, r.recoveryMs, r.fiveXx, r.fiveXxWindowMs, r.last5xxAfterEndMs ?? '-', r.clientErrors, r.mergeHeldMs, r.clientErrorMs, r.problems.length].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [`fault injection, mode ${MODE} (${SIZE.pushes} pushes, ${SIZE.merges} merges per scenario)`, fmt(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(fmt)];
  for (const r of rows) if (r.fiveXx) out.push(`  ${r.scenario}: 5xx ${Object.entries(r.fiveXxByKind).map(([k, n]) => `${k} x${n}`).join(', ')}`);
  for (const r of rows) for (const p of new Set(r.problems)) out.push(`  ${r.scenario}: ${p}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

const SCENARIO_MS = MODE === 'big' ? 1_800_000 : MODE === 'full' ? 600_000 : 240_000;

describe('fault injection', () => {
  it.each(SERVICES.map((s) => [s]))('kill -9 of %s mid-stream, restarted: nothing lost, nothing stuck, ready by itself', async (name) => {
    // merge-requests dies while a merge is being made.
    const trigger = name === 'merge-requests' ? (w: Workload) => w.merges.length >= 1 && w.pushesDone >= SIZE.pushes * 0.2 : undefined;
    const f = await scenario(`kill-${name}`, () => killAndRestart(name as ServiceName), trigger);
    expect(f.problems).toEqual([]);
    expect(f.lost).toBe(0);
  }, SCENARIO_MS);

  it('RabbitMQ stopped for 10 s mid-stream: nothing lost once it is back', async () => {
    const f = await scenario('rabbitmq-stop', async () => {
      const at = Date.now();
      try {
        await run('rabbitmqctl', ['stop_app']);
        await sleep(10_000);
      } finally {
        await run('rabbitmqctl', ['start_app']);
      }
      return { at, end: Date.now() };
    });
    expect(f.problems).toEqual([]);
  }, SCENARIO_MS);

  it('Postgres restarted mid-stream: nothing lost, every service ready again by itself', async () => {
    const f = await scenario('postgres-restart', async () => {
      const at = Date.now();
      try {
        await run('pg_ctlcluster', ['--skip-systemctl-redirect', versionOfPostgres(), 'main', 'restart']);
      } finally {
        await ensurePostgres();
      }
      return { at, end: Date.now() };
    });
    expect(f.problems).toEqual([]);
  }, SCENARIO_MS);

  it('git-storage killed between a ref move and its journal entry: the push event is delivered once', async () => {
    let sha = '';
    const f = await scenario('ref-before-journal', async (w) => {
      const resume = await w.pause();
      try {
        const hold = path.join(root, `hold-${randomBytes(4).toString('hex')}`);
        await cluster.kill('git-storage');
        await cluster.start('git-storage', { GITHOST_TEST_PAUSE_REF_TRANSACTION: `committed ${hold}` });
        const work = makeWorkdir();
        await git(work, 'init', '-q');
        await git(work, 'commit', '-q', '--allow-empty', '-m', 'paused');
        sha = await git(work, 'rev-parse', 'HEAD');
        const push = gitResult(work, 'push', '-q', w.remote(w.pushRepo), 'HEAD:refs/heads/paused');
        const hookPid = await within(30_000, () => (existsSync(hold) && /^\d+$/.test(readFileSync(hold, 'utf8').trim()) ? Number(readFileSync(hold, 'utf8').trim()) : undefined));
        const at = Date.now();
        await cluster.kill('git-storage');
        process.kill(hookPid, 'SIGKILL');
        rmSync(hold, { force: true });
        const pushed = await push;
        const problems = pushed.code === 0 ? ['the paused push succeeded although git-storage died before confirming it'] : [];
        await sleep(1000);
        const end = Date.now();
        await cluster.start('git-storage');
        // The ref moved: its event is expected, as if the client had been told.
        w.pushes.push({ repo: w.pushRepo, ref: 'refs/heads/paused', sha, ok: true, at: end });
        return { at, end, problems };
      } finally {
        resume();
      }
    });
    const events = receiver.received.filter((d) => d.path === '/ref-before-journal' && d.event === 'push' && d.body.ref === 'refs/heads/paused' && d.body.after === sha);
    expect(f.problems).toEqual([]);
    expect(new Set(events.map((d) => d.headers['x-githost-delivery'])).size).toBe(1);
  }, SCENARIO_MS);

  it('upstream dies mid-clone and mid-push: the client errs within 2 s; the killed push leaves no quarantine', async () => {
    const latencies: Record<string, number> = {};
    const f = await scenario('mid-transfer', async (w) => {
      const problems: string[] = [];
      // A repository with a large, incompressible file: a clone and a push take a while.
      const big = makeWorkdir();
      await git(big, 'init', '-q');
      writeFileSync(path.join(big, 'big.bin'), randomBytes(48 * 1024 * 1024));
      await git(big, 'add', 'big.bin');
      await git(big, 'commit', '-q', '-m', 'big');
      await git(big, 'push', '-q', w.remote(w.mergeRepo), 'HEAD:refs/heads/big');
      const at = Date.now();
      // Mid-clone: the client has started writing the pack it receives.
      const clone = path.join(makeWorkdir(), 'clone');
      const cloning = gitChild(['clone', '-q', '--bare', '--branch', 'big', w.remote(w.mergeRepo), clone]);
      const caught = await within(60_000, () => (cloning.exited ? false : existsSync(path.join(clone, 'objects', 'pack')) && readdirSync(path.join(clone, 'objects', 'pack')).some((n) => n.startsWith('tmp_')) ? true : undefined), 10);
      if (caught) {
        const killedAt = Date.now();
        await cluster.kill('git-storage');
        const code = await cloning.done;
        latencies.clone = Date.now() - killedAt;
        if (code === 0) problems.push('the clone succeeded although git-storage died during it');
        await cluster.start('git-storage');
      } else problems.push('the clone ended before git-storage could be killed during it');
      // Mid-push: receive-pack has its quarantine.
      const pushWork = makeWorkdir();
      await git(pushWork, 'init', '-q');
      writeFileSync(path.join(pushWork, 'big2.bin'), randomBytes(48 * 1024 * 1024));
      await git(pushWork, 'add', 'big2.bin');
      await git(pushWork, 'commit', '-q', '-m', 'big2');
      const pushing = gitChild(['push', '-q', w.remote(w.mergeRepo), 'HEAD:refs/heads/big2'], pushWork);
      const inQuarantine = await within(60_000, () => (pushing.exited ? false : leftovers().length > 0 ? true : undefined), 10);
      let end = Date.now();
      if (inQuarantine) {
        const killedAt = Date.now();
        await cluster.kill('git-storage');
        const code = await pushing.done;
        latencies.push = Date.now() - killedAt;
        if (code === 0) problems.push('the push succeeded although git-storage died during it');
        await sleep(1000);
        end = Date.now();
        await cluster.start('git-storage');
        // Housekeeping looks at a repository when it is first used after the start.
        await gitResult(makeWorkdir(), 'ls-remote', w.remote(w.mergeRepo));
        const left = await within(15_000, () => (leftovers().length === 0 ? [] : undefined)).catch(() => leftovers());
        if (left.length) problems.push(`the killed push left ${left.join(', ')}`);
      } else problems.push('the push ended before git-storage could be killed during it');
      for (const [what, ms] of Object.entries(latencies)) if (ms > CLIENT_ERROR_MS) problems.push(`${what}: the client erred ${ms} ms after its upstream died`);
      return { at, end, problems, clientErrorMs: Object.entries(latencies).map(([k, v]) => `${k} ${v}`).join(', ') };
    }, (w) => w.pushesDone >= SIZE.pushes * 0.2);
    expect(f.problems).toEqual([]);
    expect(Object.keys(latencies).sort()).toEqual(['clone', 'push']);
  }, SCENARIO_MS);
});

/** git as a child process whose end can be awaited and seen. */
function gitChild(args: string[], cwd = tmpdir()): { done: Promise<number>; exited: boolean } {
  const home = mkdtempSync(path.join(tmpdir(), 'githost-faults-home-'));
  const child = spawn('git', ['-c', 'credential.helper=', ...args], { cwd, stdio: 'ignore', env: { PATH: process.env.PATH, HOME: home, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' } });
  const state = {
    exited: false,
    done: new Promise<number>((resolve) =>
      child.on('exit', (code) => {
        state.exited = true;
        rmSync(home, { recursive: true, force: true });
        resolve(code ?? -1);
      }),
    ),
  };
  return state;
}

async function within<T>(ms: number, probe: () => T | undefined, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await sleep(everyMs);
  }
}
