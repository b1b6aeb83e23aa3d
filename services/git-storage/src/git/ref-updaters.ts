import type { ChildProcess } from 'node:child_process';
import { spawnGit } from './command.js';
import { classifyGitFailure, GitError, GitTimeoutError } from './errors.js';
import { isFullOid, ZERO_OID } from '@githost/git-records/object-id';
import { isValidRefFormat } from './validate.js';

export interface RefUpdatersOptions {
  /** Live processes across all repositories; the least recently used idle one goes first. */
  maxProcesses?: number;
  /** An idle process older than this is ended. */
  idleTtlMs?: number;
  /** A transaction not answered within this is killed with its process. */
  timeoutMs?: number;
}

/**
 * Long-lived `git update-ref --stdin` processes, one per repository (Gitaly's updateref.Updater
 * habit): a compare-and-swap ref move is one `start` / `update` / `prepare` / `commit` transaction
 * on a warm process instead of a git spawn (bench/RESULTS.md "Merge requests"). Moves of one
 * repository take turns on its process. git locks the ref and compares its value under the lock
 * at `prepare`, as a spawned `update-ref <ref> <new> <old>` does, and ends the process when a
 * transaction fails (a stale old value, a locked ref): the failure is classified from what it
 * printed, and the next move starts a fresh process.
 */
export class RefUpdaters {
  private readonly max: number;
  private readonly ttl: number;
  private readonly timeoutMs: number;
  private readonly repos = new Map<string, { process?: RefUpdateProcess; turn: Promise<unknown>; lastUsed: number }>();
  private closed = false;
  private readonly reaper: NodeJS.Timeout;

  constructor(opts: RefUpdatersOptions = {}) {
    this.max = opts.maxProcesses ?? 16;
    this.ttl = opts.idleTtlMs ?? 10_000;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.reaper = setInterval(() => this.reap(), Math.max(50, Math.floor(this.ttl / 2)));
    this.reaper.unref();
  }

  /** Live processes. */
  get size(): number {
    let n = 0;
    for (const r of this.repos.values()) if (r.process?.alive) n++;
    return n;
  }

  /**
   * Moves `ref` from `oldOid` to `newOid` (ZERO_OID: create, or delete) or throws the GitError a
   * spawned `update-ref` would have (RefMismatchError, RefLockedError, NotFoundError). The ref and
   * ids were validated by the caller; a line break in one would be a second command, so none passes.
   */
  update(gitDir: string, ref: string, newOid: string, oldOid: string): Promise<void> {
    if (!isValidRefFormat(ref) || !isFullOid(newOid) || !isFullOid(oldOid)) {
      return Promise.reject(new GitError('update-ref: a ref name or id that cannot be written on one line'));
    }
    const command = newOid === ZERO_OID ? `delete ${ref} ${oldOid}` : `update ${ref} ${newOid} ${oldOid}`;
    const repo = this.repos.get(gitDir) ?? { turn: Promise.resolve(), lastUsed: Date.now() };
    this.repos.set(gitDir, repo);
    const run = repo.turn.then(async () => {
      if (this.closed) throw new GitError('update-ref processes are closed');
      if (!repo.process?.alive) {
        repo.process?.kill();
        if (!this.repos.has(gitDir)) this.repos.set(gitDir, repo); // forgotten while it waited
        this.evictBeyondCap(gitDir);
        repo.process = new RefUpdateProcess(gitDir);
      }
      try {
        await repo.process.transaction(command, this.timeoutMs);
      } finally {
        repo.lastUsed = Date.now();
      }
    });
    repo.turn = run.catch(() => undefined);
    return run;
  }

  /** Ends the process of one repository (it is being removed). */
  forget(gitDir: string): void {
    this.repos.get(gitDir)?.process?.kill();
    this.repos.delete(gitDir);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.reaper);
    for (const r of this.repos.values()) r.process?.kill();
    this.repos.clear();
  }

  private evictBeyondCap(keep: string): void {
    const live = [...this.repos.entries()].filter(([dir, r]) => dir !== keep && r.process?.alive);
    if (live.length < this.max) return;
    // Only an idle process can go: a busy one is mid-transaction.
    const idle = live.filter(([, r]) => !r.process!.busy).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [, r] of idle.slice(0, live.length - this.max + 1)) r.process!.kill();
  }

  private reap(): void {
    const cutoff = Date.now() - this.ttl;
    for (const [dir, r] of this.repos) {
      if (r.process?.busy || r.lastUsed >= cutoff) continue;
      r.process?.kill();
      // Nothing queued behind it (it is idle and old): the entry goes too.
      this.repos.delete(dir);
    }
  }
}

/** One `git update-ref --stdin` process; its transactions are run one at a time by RefUpdaters. */
class RefUpdateProcess {
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  private stdout = '';
  private stderr = '';
  private wake: (() => void) | undefined;
  private dead = false;
  busy = false;

  constructor(gitDir: string) {
    this.child = spawnGit({ name: 'update-ref', flags: ['--stdin'] }, { gitDir });
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code) => resolve(code));
      this.child.on('error', () => resolve(null));
    });
    void this.exited.then(() => {
      this.dead = true;
      this.wake?.();
    });
    this.child.stdin!.on('error', () => undefined); // a dead process is seen through `exited`
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (s: string) => {
      this.stdout += s;
      this.wake?.();
    });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (s: string) => {
      if (this.stderr.length < 64 * 1024) this.stderr += s;
    });
  }

  get alive(): boolean {
    return !this.dead && this.child.exitCode === null && this.child.signalCode === null;
  }

  kill(): void {
    this.dead = true;
    this.child.kill('SIGKILL');
  }

  /** One transaction of `command`; resolves once git answered `commit: ok`. */
  async transaction(command: string, timeoutMs: number): Promise<void> {
    this.busy = true;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.kill();
    }, timeoutMs);
    try {
      this.stdout = '';
      this.child.stdin!.write(`start\n${command}\nprepare\ncommit\n`);
      const answers = ['start: ok', 'prepare: ok', 'commit: ok'];
      for (const expected of answers) {
        const line = await this.nextLine();
        if (line === null) {
          if (timedOut) throw new GitTimeoutError(`git update-ref timed out after ${timeoutMs} ms`);
          const code = await this.exited;
          throw classifyGitFailure('update-ref', this.stderr, code);
        }
        if (line !== expected) {
          this.kill();
          throw new GitError(`git update-ref answered "${line.slice(0, 200)}" where "${expected}" was due`);
        }
      }
    } finally {
      clearTimeout(timer);
      this.busy = false;
    }
  }

  /** The next answer line; null once the process has ended (git ends it on a failed command). */
  private async nextLine(): Promise<string | null> {
    for (;;) {
      const nl = this.stdout.indexOf('\n');
      if (nl >= 0) {
        const line = this.stdout.slice(0, nl);
        this.stdout = this.stdout.slice(nl + 1);
        return line;
      }
      if (this.dead) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
