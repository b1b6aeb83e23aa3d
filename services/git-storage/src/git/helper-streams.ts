import { randomBytes, timingSafeEqual } from 'node:crypto';
import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { GitRunner, StreamReport } from './runner.js';

/**
 * What the service's streaming callers use of a git process: a ChildProcess has it, and so has a
 * git the helper started on this process's sockets (HelperGitChild).
 */
export interface GitChild {
  readonly pid?: number | undefined;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  kill(signal?: NodeJS.Signals): boolean;
  on(event: 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  once(event: 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: 'error', listener: (err: Error) => void): this;
}

/** How long a stream's git may take to start through the helper before it is started here. */
const START_TIMEOUT_MS = 10_000;

/** A header longer than this is not the helper's: the connection is dropped. */
const MAX_HEADER = 128;

/**
 * A git the helper process started with this process's sockets as its stdin, stdout and stderr
 * (services/git-storage/README.md#git-from-a-helper-process): it reads and writes them directly,
 * so its bytes never pass through the helper, and this process never forks. Its start and end
 * come as the helper's reports; `kill` goes through the helper.
 */
class HelperGitChild extends EventEmitter implements GitChild {
  pid: number | undefined;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly sockets: (net.Socket | undefined)[] = [undefined, undefined, undefined];
  private exited = false;
  private closed = false;
  /** git's end, when it came before the caller had the child. */
  endedEarly: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(
    private readonly runner: GitRunner,
    readonly id: number,
  ) {
    super();
  }

  get stdin(): net.Socket | null {
    return this.sockets[0] ?? null;
  }
  get stdout(): net.Socket | null {
    return this.sockets[1] ?? null;
  }
  get stderr(): net.Socket | null {
    return this.sockets[2] ?? null;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.exited) return false;
    this.runner.killStream(this.id, signal);
    return true;
  }

  /** True once git started and its three sockets are here. */
  get complete(): boolean {
    return this.pid !== undefined && this.sockets.every((s) => s !== undefined);
  }

  /**
   * git's end, told never in the turn the child is handed over in, as a ChildProcess never ends in
   * the tick it was spawned in: the caller's continuation (a microtask) attaches its 'exit' and
   * 'close' listeners only after that turn, and node emits IPC messages on process.nextTick, so a
   * quick git's "spawned" and "exit" can both be handled before it (a 'close' emitted then was
   * lost, and an empty diff's `await exit` waited for ever).
   */
  ended(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = true;
    setImmediate(() => {
      this.exitCode = code;
      this.signalCode = signal;
      // As node does for a child's stdin pipe: closed at git's exit, so a git it started that reads
      // the same input (receive-pack's unpack-objects) reads its end instead of waiting for more.
      this.sockets[0]?.destroy();
      this.emit('exit', code, signal);
      // As a ChildProcess: 'close' once git ended and its output streams closed.
      const outputs = [this.sockets[1], this.sockets[2]].filter((s): s is net.Socket => s !== undefined && !s.closed);
      // As node's ChildProcess does after 'exit' (flushStdio): output whose reader went away (a
      // pipe undone when a push's client died leaves it paused) is drained, so its end and this
      // 'close' come; a push waits for 'close' to remove its quarantine. Output never read yet is
      // left for its reader (an advertisement read after git ended).
      process.nextTick(() => {
        for (const s of outputs) if (s.readable && s.readableFlowing === false) s.resume();
      });
      let open = outputs.length;
      const close = () => {
        if (this.closed) return;
        this.closed = true;
        this.emit('close', code, signal);
      };
      if (open === 0) close();
      for (const s of outputs) s.once('close', () => --open === 0 && close());
    });
  }
}

/**
 * Starts stream gits (transport, archive) through the git helper, on sockets of this process's: a
 * listener on an abstract Unix socket (Linux; no file to leave behind), each connection proved
 * by a random token of this process's and naming the stream and the descriptor it is for.
 */
export class HelperStreams {
  private server: net.Server | undefined;
  private listening: Promise<string> | undefined;
  private readonly token = randomBytes(24).toString('hex');
  private readonly waiting = new Map<number, { child: HelperGitChild; resolve(c: GitChild): void; reject(e: Error): void; timer: NodeJS.Timeout }>();

  constructor(private readonly runner: GitRunner) {}

  /**
   * git with `argv` and `env`, started by the helper; undefined when the helper is not ready (it
   * is started for the next one) or this is not Linux: the caller starts git itself. Rejects when
   * the helper could not start it (the caller may then start it itself: nothing ran).
   */
  spawn(argv: string[], env: NodeJS.ProcessEnv, oomScoreAdj?: number): Promise<GitChild> | undefined {
    if (process.platform !== 'linux') return undefined;
    if (!this.server) this.listen();
    const socketPath = this.socketPath;
    if (!socketPath) return undefined;
    let child: HelperGitChild | undefined;
    const started = new Promise<GitChild>((resolve, reject) => {
      const id = this.runner.startStream({ argv, env, socketPath, token: this.token, ...(oomScoreAdj !== undefined ? { oomScoreAdj } : {}) }, (r) => this.report(r));
      if (id === undefined) return;
      const waiting = new HelperGitChild(this.runner, id);
      child = waiting;
      // A helper that neither starts git nor says why: the caller starts it itself.
      const timer = setTimeout(() => {
        if (this.waiting.get(id) !== entry) return;
        this.refuse(entry, `the git helper did not start git within ${START_TIMEOUT_MS} ms`);
        this.runner.killStream(id, 'SIGKILL');
      }, START_TIMEOUT_MS).unref();
      const entry = { child: waiting, resolve, reject, timer };
      this.waiting.set(id, entry);
    });
    return child ? started : undefined;
  }

  private socketPath: string | undefined;

  private listen(): void {
    const path = `\0githost-git-${process.pid}-${randomBytes(8).toString('hex')}`;
    const server = net.createServer((socket) => this.accept(socket));
    server.on('error', () => {
      // Unusable: every stream starts git here from now on.
      this.socketPath = undefined;
    });
    server.listen(path);
    server.unref();
    this.server = server;
    this.socketPath = path;
  }

  private report(r: StreamReport): void {
    const entry = this.waiting.get(r.id);
    if ('failed' in r) {
      if (entry) this.refuse(entry, `git could not be started by the helper: ${r.failed}`);
      return;
    }
    const child = entry?.child ?? this.started.get(r.id);
    if (!child) return;
    if ('spawned' in r) {
      child.pid = r.spawned;
      this.settle(child);
    } else if (entry && child.pid === undefined) {
      // The helper went away before it said git started: nothing is handed over (the caller starts
      // git itself; a git the helper did start reads the end of its closed sockets).
      this.refuse(entry, 'the git helper exited before git started');
    } else if (entry) {
      // A quick git (an advertisement) can end before its sockets are accepted here: its output
      // waits in them, and its end is told once the caller has it.
      child.endedEarly = r.exit;
      this.settle(child);
    } else {
      this.started.delete(r.id);
      child.ended(r.exit.code, r.exit.signal);
    }
  }

  private refuse(entry: { child: HelperGitChild; reject(e: Error): void; timer: NodeJS.Timeout }, why: string): void {
    this.waiting.delete(entry.child.id);
    clearTimeout(entry.timer);
    for (const socket of entry.child.sockets) socket?.destroy();
    entry.reject(new Error(why));
  }

  /** Streams handed over and not ended yet, for their end's report. */
  private readonly started = new Map<number, HelperGitChild>();

  private settle(child: HelperGitChild): void {
    const entry = this.waiting.get(child.id);
    if (!entry || !child.complete) return;
    this.waiting.delete(child.id);
    clearTimeout(entry.timer);
    // git never writes to its stdin: read it only to see its end when git exits.
    child.stdin!.resume();
    entry.resolve(child);
    const early = child.endedEarly;
    if (early) child.ended(early.code, early.signal);
    else this.started.set(child.id, child);
  }

  /** Reads `<token> <id> <fd>\n` off a new connection and gives the socket to its stream. */
  private accept(socket: net.Socket): void {
    let header = Buffer.alloc(0);
    socket.on('error', () => undefined);
    // Read with 'readable', not 'data': once its listener is gone the stream is neither flowing nor
    // paused, so the caller's first 'data' listener or pipe starts it, as on a child's pipe.
    const onReadable = () => {
      for (let chunk: Buffer | null; (chunk = socket.read() as Buffer | null) !== null; ) {
        header = Buffer.concat([header, chunk]);
        const end = header.indexOf(0x0a);
        if (end < 0) {
          if (header.length > MAX_HEADER) socket.destroy();
          continue;
        }
        socket.off('readable', onReadable);
        const rest = header.subarray(end + 1);
        if (rest.length > 0) socket.unshift(rest);
        const [token, id, fd] = header.subarray(0, end).toString('latin1').split(' ');
        const entry = this.waiting.get(Number(id));
        const which = Number(fd);
        if (!token || !sameToken(token, this.token) || !entry || ![0, 1, 2].includes(which) || entry.child.sockets[which]) return void socket.destroy();
        entry.child.sockets[which] = socket;
        this.settle(entry.child);
        return;
      }
    };
    socket.on('readable', onReadable);
  }
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
