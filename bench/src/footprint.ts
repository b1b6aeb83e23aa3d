import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
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
/** docs/embedded-mode.md: a laptop user expects a git host to idle like Gitea and start in seconds. */
const IDLE_TARGET = 300 * MiB;
const LOAD_TARGET = 500 * MiB;
const READY_TARGET_MS = 10_000;
/** docs/embedded-mode.md: from the end of `npm install` on a fresh clone, the first page within 15 s, build included. */
const FIRST_PAGE_TARGET_MS = 15_000;
/** `npm install` takes ~25 s on this machine when quiet, 40-75 s when busy; room before the part gives up. */
const INSTALL_TIMEOUT_MS = 600_000;

interface Started {
  /** `npm start`'s own pid: the whole tree under it is what a laptop pays for. */
  pid: number;
  url: string;
  readyMs: number;
  /** What `npm start` printed (its build's summary line among it). */
  logPath: string;
  rss: RssSampler;
  stop(): Promise<void>;
}

/**
 * `npm start` exactly as a user runs it (embedded mode: PGlite, in-process bus): first in a fresh
 * `git clone` of this repository right after its `npm install` (so the build `npm start` runs and
 * a fresh DATA_DIR are both timed), then again on a restart: time until the first page (`GET /`,
 * the web's home through the gateway) answers 200, the RSS of the whole process tree `npm start`
 * leaves running (npm included) at idle, and its peak under browse load.
 */
export async function benchFootprint(ctx: BenchContext): Promise<Section> {
  const seconds = Number(process.env.BENCH_SECONDS ?? (ctx.quick ? 3 : 10));
  const scratch = mkdtempSync(join(workDir('data'), 'footprint-'));
  const tree = join(scratch, 'clone');
  const dataDir = join(scratch, 'data');
  const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
  const rows: string[][] = [];
  const notes: string[] = [];
  const loads: string[] = [];
  try {
    // The committed HEAD, as a user's clone has it: uncommitted changes are not in the timed tree.
    const t0 = nowMs();
    await git(['clone', '-q', '--', ROOT_DIR, tree]);
    const cloneMs = nowMs() - t0;
    const head = (await git(['-C', tree, 'rev-parse', '--short', 'HEAD'])).stdout.toString().trim();
    const t1 = nowMs();
    await runLogged('npm', ['install'], tree, join(scratch, 'npm-install.log'), INSTALL_TIMEOUT_MS);
    const installMs = nowMs() - t1;
    ctx.log(`footprint: git clone ${(cloneMs / 1000).toFixed(1)} s, npm install ${(installMs / 1000).toFixed(1)} s`);
    notes.push(`the clone: ${head}; git clone ${(cloneMs / 1000).toFixed(1)} s, then npm install ${(installMs / 1000).toFixed(1)} s (not in the target, which starts when npm install ends)`);
    for (const run of ['fresh clone', 'restart'] as const) {
      // Other work on the machine stretches a start several times over: say how busy it was.
      loads.push(`${run} ${loadavg()[0]!.toFixed(1)}`);
      const started = await npmStart(tree, dataDir, adminToken, ctx);
      try {
        // Start-up work (migrations, hooks, relays) settles before idle is read.
        await waitForQuiet(started.pid, 30_000);
        await new Promise((r) => setTimeout(r, 3000));
        started.rss.reset();
        const idle = started.rss.read().treeBytes;
        const peak = await browseLoad(started, adminToken, run === 'fresh clone' ? 'create' : 'reuse', seconds);
        const first = `${(started.readyMs / 1000).toFixed(1)} s`;
        if (run === 'fresh clone') {
          // scripts/build-fast.mjs's summary line: how much of the wait was the build.
          const build = /build-fast: built \d+ workspaces .* in ([\d.]+) s \(transpiled by ([\d.]+) s\)/.exec(readFileSync(started.logPath, 'utf8'));
          rows.push([`${run}: first page after npm start (build, database template and fresh DATA_DIR included)`, first, '<= 15 s', met(started.readyMs <= FIRST_PAGE_TARGET_MS)]);
          notes.push(`of the fresh clone's first page, npm start's build (swc, then the database template) took ${build ? `${build[1]} s (swc done by ${build[2]} s)` : 'a time it did not log'}`);
        } else {
          rows.push([`${run}: first page after npm start`, first, '<= 10 s', met(started.readyMs <= READY_TARGET_MS)]);
        }
        rows.push(
          [`${run}: idle RSS, whole tree`, fmtMiB(idle), '<= 300 MiB', met(idle <= IDLE_TARGET)],
          [`${run}: peak RSS under browse load, whole tree`, fmtMiB(peak), '<= 500 MiB', met(peak <= LOAD_TARGET)],
        );
      } finally {
        await started.stop();
      }
    }
  } finally {
    if (!process.env.BENCH_KEEP_DATA) rmSync(scratch, { recursive: true, force: true });
  }
  notes.unshift(
    '`git clone` of this repository\'s committed HEAD into a scratch directory, `npm install` there, then `npm start` from the clone\'s root with DATABASE_URL and AMQP_URL unset (one process, PGlite, in-process bus): the first start builds the tree (scripts/build-fast.mjs: swc, then the database template) and makes a fresh DATA_DIR; the restart finds both made. "First page": `GET /` through the gateway answers 200. RSS is the sum over npm and every process under it, sampled from /proc every 200 ms',
    `browse load: 50 connections for ${seconds} s on each of tree, blob, commits and branches of a small pushed repository`,
    `1-minute load average as each npm start began: ${loads.join(', ')} (${cpus().length} cores)`,
  );
  return { name: 'footprint', title: 'Footprint (npm start, embedded)', tables: [{ title: 'Footprint of `npm start`', header: ['case', 'measured', 'target', 'met'], rows }], notes };
}

function met(ok: boolean): string {
  return ok ? 'met' : 'not met';
}

async function npmStart(tree: string, dataDir: string, adminToken: string, ctx: BenchContext): Promise<Started> {
  const port = await freePort();
  const env = userEnv();
  Object.assign(env, {
    PORT: String(port),
    METRICS_PORT: '0',
    SSH_PORT: '0',
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
  const child = spawn('npm', ['start'], { cwd: tree, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
      if ((await fetch(`${url}/`, { signal: AbortSignal.timeout(2000) })).status === 200) readyMs = nowMs() - t0;
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
    throw new Error(`npm start did not answer GET / within 120 s; see ${log.path as string}`);
  }
  ctx.log(`footprint: npm start's first page after ${(readyMs / 1000).toFixed(1)} s`);
  rss.start();
  return { pid: child.pid!, url, readyMs, logPath: log.path as string, rss, stop };
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

/** The environment a user's shell gives `npm`: none of the variables npm and turbo set for this run. */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') && !k.startsWith('TURBO_')));
}

/** Runs a command to completion, its output into `logPath`; fails with the log's path. */
async function runLogged(cmd: string, args: string[], cwd: string, logPath: string, timeoutMs: number): Promise<void> {
  const log = createWriteStream(logPath);
  const child = spawn(cmd, args, { cwd, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c, s) => resolve([c, s]));
  });
  log.end();
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`}); see ${logPath}`);
}
