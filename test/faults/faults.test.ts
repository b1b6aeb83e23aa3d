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
import { MERGE_RECOVERY_MS, MODE, printTable, scenarioTimeout, sizeOf, repositories, staleOpenIntents, verify, type CheckTarget, type Fault, type Figures } from './checks.js';
import { Cluster, SERVICES, sleep, type ServiceName } from './cluster.js';
import { Workload, type User } from './workload.js';

const run = promisify(execFile);

const SIZE = sizeOf({ pushes: 40, merges: 3 });
const PUSHERS = 3;

/** A client whose upstream died gets an error within this. */
const CLIENT_ERROR_MS = 2_000;
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
  printTable(`fault injection, mode ${MODE} (${SIZE.pushes} pushes, ${SIZE.merges} merges per scenario)`, results);
  if (process.env.FAULTS_RESULTS) writeFileSync(process.env.FAULTS_RESULTS, JSON.stringify({ mode: MODE, size: SIZE, results }, null, 2));
  await cluster?.stop();
  await receiver?.close();
  await database?.drop().catch(() => undefined);
  await removeBrokerTopology(amqpUrl, names.exchange, [names.webhooksQueue, names.mergeRequestsQueue, names.accountsQueue]).catch(() => undefined);
  removeWorkdirs();
  if (!process.env.FAULTS_KEEP) rmSync(root, { recursive: true, force: true });
}, 120_000);

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
  const stuck = sleep(Math.max(0, f.end + MERGE_RECOVERY_MS - Date.now())).then(() => staleOpenIntents(database.url));
  const ready = await cluster.waitAllReady(60_000);
  const recoveredAt = Date.now();
  await running;
  const target: CheckTarget = { receiver, user, databaseUrl: database.url, reposRoot: path.join(cluster.dataDirOf('git-storage'), 'repos') };
  const figures = await verify(target, name, w, f, ready, recoveredAt, stuck);
  results.push(figures);
  return figures;
}

const reposDir = () => path.join(cluster.dataDirOf('git-storage'), 'repos');

/** Quarantines and temporary packs left in the repositories (every one unless named). */
function leftovers(repos = repositories(reposDir())): string[] {
  return repos.flatMap((repo) => [
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

const SCENARIO_MS = scenarioTimeout(240_000);

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
      // Mid-push: receive-pack has its quarantine. The push goes to a repository of its own, so the
      // quarantine watched for is this push's, not one of the workload's pushes (with those, the kill
      // came while the client was still packing its 48 MiB and its error waited for that).
      const pushWork = makeWorkdir();
      await git(pushWork, 'init', '-q');
      writeFileSync(path.join(pushWork, 'big2.bin'), randomBytes(48 * 1024 * 1024));
      await git(pushWork, 'add', 'big2.bin');
      await git(pushWork, 'commit', '-q', '-m', 'big2');
      const killedRepo = `${w.mergeRepo}-killed-push`;
      const existing = new Set(repositories(reposDir()));
      const created = await w.call('POST', '/api/repos', { name: killedRepo });
      if (created.status !== 201) problems.push(`the killed push's repository was answered ${created.status}`);
      const pushing = gitChild(['push', '-q', w.remote(killedRepo), 'HEAD:refs/heads/big2'], pushWork);
      const inQuarantine = await within(60_000, () => (pushing.exited ? false : leftovers(repositories(reposDir()).filter((r) => !existing.has(r))).length > 0 ? true : undefined), 10);
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
        await gitResult(makeWorkdir(), 'ls-remote', w.remote(killedRepo));
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
