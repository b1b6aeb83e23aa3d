import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@githost/test-support';
import { ROOT_DIR, workDir } from './paths.js';
import { githostDescendants, RssSampler, type NamedProcess } from './rss.js';

export const LAUNCHER_MAIN = join(ROOT_DIR, 'launcher', 'dist', 'main.js');

/** githost running as `npm start` runs it, in a child process so its memory can be measured. */
export interface RunningService {
  url: string;
  port: number;
  /** The launcher's; with one process per service, every service process descends from it. */
  pid: number;
  /** githost's processes by name (the launcher first), from its "githost started" line. */
  processes: NamedProcess[];
  adminToken: string;
  dataDir: string;
  /** Services the launcher reported as started (it skips ones not landed yet). */
  services: string[];
  logFile: string;
  rss: RssSampler;
  /** Stops githost with its data kept, runs `between` (the embedded database is free to open
   *  then), and starts it again on the same port, data and admin token; `pid`, `processes` and
   *  `services` follow, and `rss` samples the new processes. */
  restart(between: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

export function launcherMissing(): string | undefined {
  return existsSync(LAUNCHER_MAIN) ? undefined : `launcher not built (${LAUNCHER_MAIN} missing)`;
}

export async function startService(env: Record<string, string>, options: { port?: number } = {}): Promise<RunningService> {
  const port = options.port ?? (await freePort());
  const dataDir = mkdtempSync(join(workDir('data'), 'githost-'));
  const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
  const logFile = join(dataDir, 'service.log');
  const log = createWriteStream(logFile);
  const url = `http://127.0.0.1:${port}`;
  let run = await launch({ env, port, dataDir, adminToken, log, logFile, url });
  const rss = new RssSampler(run.processes);
  rss.start();
  let stopping: Promise<void> | undefined;
  const stopChild = async (): Promise<void> => {
    run.child.kill('SIGTERM');
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 10_000);
    await run.exited;
    clearTimeout(timer);
  };
  const service: RunningService = {
    url,
    port,
    pid: run.child.pid!,
    processes: run.processes,
    adminToken,
    dataDir,
    services: run.services,
    logFile,
    rss,
    async restart(between) {
      await stopChild();
      await between();
      run = await launch({ env, port, dataDir, adminToken, log, logFile, url });
      Object.assign(service, { pid: run.child.pid!, processes: run.processes, services: run.services });
      rss.follow(run.processes);
    },
    stop: () =>
      (stopping ??= (async () => {
        rss.stop();
        await stopChild();
        log.end();
        if (!process.env.BENCH_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
      })()),
  };
  return service;
}

interface Launch {
  env: Record<string, string>;
  port: number;
  dataDir: string;
  adminToken: string;
  log: WriteStream;
  logFile: string;
  url: string;
}

/** The launcher started in `dataDir` and ready, its processes named. */
async function launch({ env, port, dataDir, adminToken, log, logFile, url }: Launch): Promise<{ child: ChildProcess; exited: Promise<number>; processes: NamedProcess[]; services: string[] }> {
  // BENCH_CPU_PROF=<dir>: githost's processes (the launcher's children inherit its flags) write
  // V8 CPU profiles there when they stop, to see where a figure's time goes.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, LAUNCHER_MAIN], {
    cwd: dataDir,
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), METRICS_PORT: '0', SSH_PORT: '0', DATA_DIR: dataDir, INIT_CWD: dataDir, GITHOST_ADMIN_TOKEN: adminToken, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = watchStartup(child);
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  const level = env.LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'info';
  const logsStart = ['trace', 'debug', 'info'].includes(level);
  await waitReady(url, exited, logFile, logsStart ? started : { ...started, seen: true });
  // Below info the start line is not logged: the service processes are then found by their titles.
  const listed = logsStart ? started.processes : [{ name: 'launcher', pid: child.pid! }, ...githostDescendants(child.pid!)];
  const processes = listed.length > 1 ? listed : [{ name: 'one process', pid: child.pid! }];
  return { child, exited, processes, services: started.list };
}

interface Startup {
  /** Set once the "githost started" line was seen. */
  seen: boolean;
  list: string[];
  processes: NamedProcess[];
}

/** Collects the service and process lists from the launcher's "githost started" log line. */
function watchStartup(child: ChildProcess): Startup {
  const state: Startup = { seen: false, list: [], processes: [] };
  let buffered = '';
  const onData = (chunk: Buffer): void => {
    buffered += chunk.toString();
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      try {
        const entry = JSON.parse(line) as { msg?: unknown; services?: unknown; processes?: unknown };
        if (entry.msg !== 'githost started') continue;
        if (Array.isArray(entry.services)) state.list.push(...entry.services.map(String));
        if (Array.isArray(entry.processes)) state.processes.push(...(entry.processes as NamedProcess[]).map((p) => ({ name: String(p.name), pid: Number(p.pid) })));
        state.seen = true;
      } catch {
        // not JSON: ignore
      }
    }
    if (state.seen) child.stdout!.off('data', onData);
  };
  child.stdout!.on('data', onData);
  return state;
}

/** Ready: the gateway answers and the launcher has named its processes (the gateway of one
 *  process per service may answer a moment before the launcher logs). */
async function waitReady(url: string, exited: Promise<number>, logFile: string, started: Startup): Promise<void> {
  let dead: number | undefined;
  void exited.then((code) => (dead = code));
  // BENCH_START_TIMEOUT_S: a machine shared with other work may need longer than 90 s.
  const startS = Number(process.env.BENCH_START_TIMEOUT_S ?? 90);
  const deadline = Date.now() + startS * 1000;
  while (Date.now() < deadline) {
    if (dead !== undefined) throw new Error(`githost exited with ${dead} during start-up; see ${logFile}`);
    try {
      // Bounded: a connection accepted while the gateway starts may never be answered, and one
      // such request must not hold the whole run until the part's timeout.
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok && started.seen) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`githost did not answer /healthz and log "githost started" within ${startS} s; see ${logFile}`);
}
