import { spawn, type ChildProcess } from 'node:child_process';
import { unavailable } from '@githost/errors';

/**
 * Where `runGit` starts its git processes: a small helper process, so that the fork does not
 * stop this one (services/git-storage/README.md#git-from-a-helper-process). node's `spawn` holds the
 * event loop while the kernel copies the page tables of the whole process, and that costs more
 * the bigger the process is: tens of milliseconds for the embedded mode's one process, against a
 * few for a helper of ~50 MiB. The helper runs what it is sent and nothing else: the argv is built
 * and checked here (`buildArgv`), the environment too. It is started on first use and let go after
 * `IDLE_MS` without work; it exits with its children when this process goes away.
 */

/** One run's end, as the helper reports it. */
export interface RunOutcome {
  stdout: Buffer;
  stderr: string;
  /** null when git was killed. */
  code: number | null;
  /** Why the helper killed git, when it did; `start`: git could not be started. */
  stopped?: 'timeout' | 'cancelled' | 'too-big' | 'start';
  message?: string;
}

export interface RunRequest {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdin: Buffer;
  timeoutMs: number;
  maxStdoutBytes?: number;
  /** Added to git's nice value (its children inherit it): background work yields the cores. */
  niceness?: number;
  /** git's oom_score_adj (its children inherit it): raised, it is the kernel's first choice when memory runs out. */
  oomScoreAdj?: number;
}

/**
 * A git whose stdin, stdout and stderr are sockets the helper connects to `socketPath` (a listener
 * of this process's, helper-streams.ts), each first sending `<token> <id> <fd>\n`: git then reads
 * and writes this process's sockets directly, and only its start and end pass through the helper.
 */
export interface StreamRequest {
  argv: string[];
  env: NodeJS.ProcessEnv;
  socketPath: string;
  token: string;
  oomScoreAdj?: number;
}

/** What the helper says of a stream's git: started (its pid), ended, or could not start. */
export type StreamReport = { id: number; spawned: number } | { id: number; exit: { code: number | null; signal: NodeJS.Signals | null } } | { id: number; failed: string };

type Message = { id: number; run?: RunRequest; cancel?: true; stream?: StreamRequest; kill?: NodeJS.Signals };

/** The helper's program; kept a string so the same code runs from sources (tests) and dist. */
const HELPER = `
const { spawn } = require('node:child_process');
const os = require('node:os');
const net = require('node:net');
const running = new Map();
const streams = new Map();
const adjust = (pid, niceness, oomScoreAdj) => {
  if (niceness > 0 && pid) {
    // Best effort: a git that ended already, or a system refusing it, runs at the service's priority.
    try { os.setPriority(pid, Math.min(19, os.getPriority(pid) + niceness)); } catch {}
  }
  if (oomScoreAdj !== undefined && pid) {
    // Raising it needs no privilege; best effort likewise (no /proc, a git that ended already).
    try { require('node:fs').writeFileSync('/proc/' + pid + '/oom_score_adj', String(oomScoreAdj)); } catch {}
  }
};
const send = (m) => { if (process.connected) process.send(m); };
const startStream = (id, s) => {
  const sockets = [0, 1, 2].map((fd) => {
    const socket = net.connect(s.socketPath);
    // Never read here: what arrives is the service's input for git.
    socket.pause();
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.once('connect', () => socket.write(s.token + ' ' + id + ' ' + fd + '\\n', (err) => (err ? reject(err) : resolve(socket))));
    }).finally(() => socket.on('error', () => undefined)).catch((err) => { socket.destroy(); throw err; });
  });
  Promise.all(sockets).then((socks) => {
    let child;
    try {
      child = spawn('git', s.argv, { env: s.env, stdio: socks });
    } catch (err) {
      for (const sock of socks) sock.destroy();
      return void send({ id, failed: err.message });
    }
    // git holds its own copies now; closing these sends nothing, so its input ends when the service's does.
    for (const sock of socks) sock.destroy();
    child.on('error', (err) => { if (!child.pid) send({ id, failed: err.message }); });
    if (!child.pid) return;
    adjust(child.pid, 0, s.oomScoreAdj);
    streams.set(id, child);
    send({ id, spawned: child.pid });
    child.on('exit', (code, signal) => { streams.delete(id); send({ id, exit: { code, signal } }); });
  }, (err) => {
    Promise.allSettled(sockets).then((all) => all.forEach((r) => r.status === 'fulfilled' && r.value.destroy()));
    send({ id, failed: 'could not connect to the service: ' + err.message });
  });
};
process.on('message', ({ id, run, cancel, stream, kill }) => {
  if (cancel) return void running.get(id)?.stop('cancelled');
  if (stream) return void startStream(id, stream);
  if (kill) return void streams.get(id)?.kill(kill);
  const child = spawn('git', run.argv, { env: run.env, stdio: ['pipe', 'pipe', 'pipe'] });
  adjust(child.pid, run.niceness, run.oomScoreAdj);
  // Copied into one growing buffer as it comes, not kept chunk by chunk: a git that flushes each
  // line into the pipe (rev-list, log) arrives in hundreds of thousands of small reads, each a
  // Buffer object on this process's small heap (services/git-storage/README.md#git-from-a-helper-process).
  let out = Buffer.allocUnsafe(0);
  let bytes = 0;
  let stderr = '';
  let stopped;
  let message;
  const stop = (why, text) => { stopped ??= why; message ??= text; child.kill('SIGKILL'); };
  const timer = run.timeoutMs > 0 ? setTimeout(() => stop('timeout'), run.timeoutMs) : undefined;
  running.set(id, { child, stop });
  child.stdout.on('data', (b) => {
    if (stopped) return;
    if (run.maxStdoutBytes !== undefined && bytes + b.length > run.maxStdoutBytes) return void stop('too-big');
    if (bytes + b.length > out.length) {
      const grown = Buffer.allocUnsafe(Math.max(bytes + b.length, out.length * 2, 65536));
      out.copy(grown, 0, 0, bytes);
      out = grown;
    }
    b.copy(out, bytes);
    bytes += b.length;
  });
  child.stderr.on('data', (b) => { if (stderr.length < 65536) stderr += b.toString('utf8'); });
  child.stdin.on('error', () => undefined);
  child.on('error', (err) => stop('start', err.message));
  child.on('close', (code) => {
    if (timer) clearTimeout(timer);
    running.delete(id);
    if (process.connected) process.send({ id, outcome: { stdout: stopped ? Buffer.alloc(0) : out.subarray(0, bytes), stderr, code, stopped, message } });
  });
  child.stdin.end(run.stdin);
});
process.on('disconnect', () => {
  for (const { child } of running.values()) child.kill('SIGKILL');
  // A stream's git is left to end as it would have as the service's own child: its sockets to the
  // service are closed, so it reads an end and its writes fail, and git removes its lock files as
  // it stops (a SIGKILL would leave a push's ref locks behind).
  process.exit(0);
});
send({ ready: true });
`;

/** How long the helper is kept without work. */
export const IDLE_MS = 10_000;

export class GitRunner {
  private helper: ChildProcess | undefined;
  /** The helper once it said it is listening: streams go to it only then, never to one still starting. */
  private readyHelper: ChildProcess | undefined;
  private readonly pending = new Map<number, { helper: ChildProcess; resolve(o: RunOutcome): void; reject(e: Error): void }>();
  private readonly streams = new Map<number, { helper: ChildProcess; report(r: StreamReport): void }>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly idleMs = IDLE_MS) {}

  /**
   * Asks the helper to start a stream's git (StreamRequest); `report` hears that it started, ended
   * or could not start. Undefined when no helper is ready: the caller starts git itself, and the
   * helper is started for the next one.
   */
  startStream(request: StreamRequest, report: (r: StreamReport) => void): number | undefined {
    const helper = this.readyHelper;
    if (!helper?.connected) {
      this.warm();
      return undefined;
    }
    const id = this.nextId++;
    this.streams.set(id, {
      helper,
      report: (r) => {
        if ('exit' in r || 'failed' in r) {
          this.streams.delete(id);
          this.idleWhenDone();
        }
        report(r);
      },
    });
    this.busy();
    helper.send({ id, stream: request } satisfies Message);
    return id;
  }

  /** Signals a stream's git, through the helper that started it. */
  killStream(id: number, signal: NodeJS.Signals): void {
    const stream = this.streams.get(id);
    if (stream?.helper.connected) stream.helper.send({ id, kill: signal } satisfies Message);
  }

  run(request: RunRequest, signal?: AbortSignal): Promise<RunOutcome> {
    const helper = this.helperProcess();
    const id = this.nextId++;
    return new Promise<RunOutcome>((resolve, reject) => {
      const onAbort = () => helper.connected && helper.send({ id, cancel: true } satisfies Message);
      this.pending.set(id, {
        helper,
        resolve: (o) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(o);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      this.busy();
      helper.send({ id, run: request } satisfies Message);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Starts the helper now if it is not running, for runs that are about to come: its start (a node
   * process, ~50 ms) then overlaps the work before them instead of delaying the first. A push's
   * events are listed with runGit once receive-pack ends, and a push usually comes after more than
   * the idle time without work, so each paid the start in full (140-151 ms against 84-91 ms for a
   * push right after another, 2026-12-03). Let go after the idle time like any other.
   */
  warm(): void {
    if (this.helper?.connected) return;
    this.helperProcess();
    this.idleWhenDone();
  }

  /** The helper's pid while it runs (tests). */
  get pid(): number | undefined {
    return this.helper?.pid;
  }

  /** Lets the helper go now; runs in flight end as if it had died. */
  close(): void {
    this.helper?.disconnect();
  }

  private helperProcess(): ChildProcess {
    if (this.helper?.connected) return this.helper;
    // No NODE_OPTIONS or loaders of ours: the helper is plain node; git's environment comes with
    // each run.
    const helper = spawn(process.execPath, ['--max-old-space-size=32', '--max-semi-space-size=1', '-e', HELPER], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
    helper.on('message', (m: { id: number; outcome: RunOutcome } | StreamReport | { ready: true }) => {
      if ('ready' in m) {
        if (this.helper === helper) this.readyHelper = helper;
        return;
      }
      if (!('outcome' in m)) return void this.streams.get(m.id)?.report(m);
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      const out = m.outcome.stdout;
      p.resolve({ ...m.outcome, stdout: Buffer.from(out.buffer, out.byteOffset, out.byteLength) });
      this.idleWhenDone();
    });
    helper.on('exit', () => {
      if (this.helper === helper) this.helper = undefined;
      if (this.readyHelper === helper) this.readyHelper = undefined;
      // Its stream gits end on their own, as they read and write this process's sockets; their
      // exit codes are not known here any more.
      for (const [id, stream] of this.streams) if (stream.helper === helper) stream.report({ id, exit: { code: null, signal: 'SIGKILL' } });
      for (const [id, p] of this.pending) {
        if (p.helper !== helper) continue;
        this.pending.delete(id);
        p.reject(unavailable('the git helper process exited during the run'));
      }
      this.idleWhenDone();
    });
    helper.on('error', () => undefined); // an exit follows
    this.helper = helper;
    return helper;
  }

  /** Work in flight keeps this process alive; an idle helper does not. */
  private busy(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.helper?.ref();
    (this.helper?.channel as { ref?(): void } | undefined)?.ref?.();
  }

  private idleWhenDone(): void {
    if (this.pending.size > 0 || this.streams.size > 0 || !this.helper) return;
    const helper = this.helper;
    helper.unref();
    (helper.channel as { unref?(): void } | undefined)?.unref?.();
    this.idleTimer = setTimeout(() => helper.connected && helper.disconnect(), this.idleMs);
    this.idleTimer.unref();
  }
}
