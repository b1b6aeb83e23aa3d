import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@githost/test-support';
import { Api, createRepo, createUser, gitUrl } from './api.js';
import type { BenchContext } from './context.js';
import { git } from './git.js';
import { loadTest } from './load.js';
import { ROOT_DIR, workDir } from './paths.js';
import { waitForQuiet } from './quiet.js';
import type { Section } from './report.js';
import { RssSampler } from './rss.js';
import { fmtMiB, nowMs } from './stats.js';

const MiB = 1024 * 1024;
/** README "Performance": a laptop user expects a git host to idle like Gitea and start in seconds. */
const IDLE_TARGET = 300 * MiB;
const LOAD_TARGET = 500 * MiB;
const READY_TARGET_MS = 10_000;

interface Started {
  /** `npm start`'s own pid: the whole tree under it is what a laptop pays for. */
  pid: number;
  url: string;
  readyMs: number;
  rss: RssSampler;
  stop(): Promise<void>;
}

/**
 * `npm start` exactly as a user runs it (embedded mode: PGlite, in-process bus), from a fresh
 * DATA_DIR and again on a restart: time until GET /readyz answers, the RSS of the whole process
 * tree `npm start` leaves running (npm included) at idle, and its peak under browse load.
 */
export async function benchFootprint(ctx: BenchContext): Promise<Section> {
  const seconds = Number(process.env.BENCH_SECONDS ?? (ctx.quick ? 3 : 10));
  const dataDir = mkdtempSync(join(workDir('data'), 'footprint-'));
  const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
  const rows: string[][] = [];
  const notes: string[] = [];
  // The target is the start "once built": whatever changed since the last build is built now,
  // by `npm start`'s own build step, so the timed start finds nothing to rebuild.
  const built = spawnSync(process.execPath, [join(ROOT_DIR, 'scripts', 'start.mjs'), '--build-only'], { cwd: ROOT_DIR, stdio: 'ignore' });
  if (built.status !== 0) throw new Error(`the build before the footprint runs failed (status ${built.status ?? built.signal})`);
  try {
    for (const run of ['fresh DATA_DIR', 'restart'] as const) {
      const started = await npmStart(dataDir, adminToken, ctx);
      try {
        // Start-up work (migrations, hooks, relays) settles before idle is read.
        await waitForQuiet(started.pid, 30_000);
        await new Promise((r) => setTimeout(r, 3000));
        started.rss.reset();
        const idle = started.rss.read().treeBytes;
        const peak = await browseLoad(started, adminToken, run === 'fresh DATA_DIR' ? 'create' : 'reuse', seconds);
        rows.push(
          [`${run}: serving after npm start`, `${(started.readyMs / 1000).toFixed(1)} s`, '<= 10 s', met(started.readyMs <= READY_TARGET_MS)],
          [`${run}: idle RSS, whole tree`, fmtMiB(idle), '<= 300 MiB', met(idle <= IDLE_TARGET)],
          [`${run}: peak RSS under browse load, whole tree`, fmtMiB(peak), '<= 500 MiB', met(peak <= LOAD_TARGET)],
        );
      } finally {
        await started.stop();
      }
    }
  } finally {
    if (!process.env.BENCH_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
  }
  notes.push(
    '`npm start` from the project root with DATABASE_URL and AMQP_URL unset (one process, PGlite, in-process bus), after the build step of `npm start` (`scripts/start.mjs --build-only`), so the timed start finds nothing to rebuild; RSS is the sum over npm and every process under it, sampled from /proc every 200 ms',
    `browse load: 50 connections for ${seconds} s on each of tree, blob, commits and branches of a small pushed repository`,
  );
  return { name: 'footprint', title: 'Footprint (npm start, embedded)', tables: [{ title: 'Footprint of `npm start`', header: ['case', 'measured', 'target', 'met'], rows }], notes };
}

function met(ok: boolean): string {
  return ok ? 'met' : 'not met';
}

async function npmStart(dataDir: string, adminToken: string, ctx: BenchContext): Promise<Started> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') && !k.startsWith('TURBO_')));
  Object.assign(env, {
    PORT: String(port),
    METRICS_PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    AMQP_URL: '',
    GITHOST_PROCESS_PER_SERVICE: 'false',
    GITHOST_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    GITHOST_RATE_LIMIT_PER_MINUTE: '0',
    GITHOST_RATE_LIMIT_ANON_PER_MINUTE: '0',
    GITHOST_GIT_RATE_LIMIT_PER_MINUTE: '0',
    GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE: '0',
  });
  const log = createWriteStream(join(workDir('data'), `footprint-${port}.log`));
  const t0 = nowMs();
  // Its own process group, so stopping it reaches whatever npm started, as Ctrl-C would.
  const child = spawn('npm', ['start'], { cwd: ROOT_DIR, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let dead = false;
  void exited.then(() => (dead = true));
  const url = `http://127.0.0.1:${port}`;
  let readyMs: number | undefined;
  while (readyMs === undefined) {
    if (dead) throw new Error(`npm start exited during start-up; see ${log.path as string}`);
    if (nowMs() - t0 > 120_000) break;
    try {
      if ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) })).ok) readyMs = nowMs() - t0;
    } catch {
      // not listening yet
    }
    if (readyMs === undefined) await new Promise((r) => setTimeout(r, 100));
  }
  const stop = async (): Promise<void> => {
    rss.stop();
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // gone already
    }
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    log.end();
  };
  const rss = new RssSampler([{ name: 'npm start', pid: child.pid! }]);
  if (readyMs === undefined) {
    await stop();
    throw new Error(`npm start did not answer /readyz within 120 s; see ${log.path as string}`);
  }
  ctx.log(`footprint: npm start serving after ${(readyMs / 1000).toFixed(1)} s`);
  rss.start();
  return { pid: child.pid!, url, readyMs, rss, stop };
}

/** A small repository pushed once (fresh run), then browsed under load; the tree's peak RSS. */
async function browseLoad(started: Started, adminToken: string, repo: 'create' | 'reuse', seconds: number): Promise<number> {
  const admin = new Api(started.url, adminToken);
  if (repo === 'create') {
    const user = await createUser(admin, 'footprint');
    await createRepo(user, 'small');
    const work = mkdtempSync(join(workDir('data'), 'footprint-src-'));
    try {
      await git(['init', '-q', '-b', 'main', work]);
      await git(['-C', work, 'config', 'user.email', 'bench@example.com']);
      await git(['-C', work, 'config', 'user.name', 'bench']);
      for (let i = 0; i < 20; i++) await git(['-C', work, 'commit', '-q', '--allow-empty', '-m', `commit ${i}`]);
      const files = Array.from({ length: 50 }, (_, i) => `file${i}.txt`);
      mkdirSync(join(work, 'src'), { recursive: true });
      for (const f of files) writeFileSync(join(work, 'src', f), `${f}\n`.repeat(200));
      await git(['-C', work, 'add', '.']);
      await git(['-C', work, 'commit', '-q', '-m', 'files']);
      await git(['-C', work, 'push', '-q', gitUrl(started.url, user, 'small'), 'main']);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  started.rss.reset();
  const base = `${started.url}/api/repos/footprint/small`;
  for (const path of ['/tree/main/src', '/blob/main/src/file1.txt', '/commits/main?limit=20', '/branches']) {
    const r = await loadTest(`${base}${path}`, { connections: 50, seconds });
    if ((r.statuses['200'] ?? 0) === 0) throw new Error(`GET ${path}: no 200 under load (${JSON.stringify(r.statuses)})`);
  }
  return started.rss.read().treeBytes;
}
