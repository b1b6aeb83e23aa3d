import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { classifyGitFailure, GitCancelledError, GitError, GitOutputTooBigError, GitTimeoutError } from './errors.js';
import { GitRunner } from './runner.js';
import { HelperStreams, type GitChild } from './helper-streams.js';
export type { GitChild } from './helper-streams.js';

/**
 * The ONE way this service runs git (Gitaly's internal/git/command.go habit). No shell; only
 * allow-listed subcommands; the flags this code writes and the arguments that come from a request
 * are kept apart, and request-derived arguments always follow `--end-of-options` (revisions) or
 * `--` (paths), so none of them can ever be read as an option.
 */
export const ALLOWED_SUBCOMMANDS = new Set([
  'init',
  'config',
  'cat-file',
  'for-each-ref',
  'rev-list',
  'rev-parse',
  'merge-base',
  'merge-tree',
  'commit-tree',
  'update-ref',
  'diff-tree',
  'upload-pack',
  'receive-pack',
  'commit-graph',
  'pack-refs',
  'repack',
  'prune',
  'count-objects',
  'symbolic-ref',
  'archive',
]);

export interface GitCommand {
  /** `-c key=value` settings for this run only, written by this code (hooks path, receive policy). */
  config?: Array<[string, string]>;
  /** Allow-listed subcommand. */
  name: string;
  /** Sub-subcommand written by this code (`commit-graph write`). */
  action?: string;
  /** Flags written by this code, never by a request. */
  flags?: string[];
  /** Request-derived revisions or names: placed after `--end-of-options`. */
  args?: string[];
  /** Request-derived paths: placed after `--`. */
  paths?: string[];
}

export interface GitRunOptions {
  /** The bare repository (`--git-dir`); omitted only for `init`. */
  gitDir?: string;
  /** Extra environment (GIT_AUTHOR_*, GIT_PROTOCOL, hook variables). */
  env?: Record<string, string>;
  /** Bytes for stdin. */
  stdin?: Buffer | string;
  /** Killed (SIGKILL) after this many ms; default 60 s. 0 disables. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Exit codes that are answers rather than failures (e.g. merge-base --is-ancestor's 1). */
  okExitCodes?: number[];
  /** Refuse to keep more than this much stdout in memory. */
  maxStdoutBytes?: number;
  /** Added to git's nice value: background work (housekeeping) yields the cores to requests. */
  niceness?: number;
  /** git's oom_score_adj (its children inherit it): background work is what the kernel kills first. */
  oomScoreAdj?: number;
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

/** HOME for every git run: an empty directory with no user configuration in it (see ensureGitHome). */
export const GIT_HOME = path.join(os.tmpdir(), 'githost-git-home');

export async function ensureGitHome(): Promise<void> {
  await mkdir(GIT_HOME, { recursive: true, mode: 0o700 });
}

/** The environment every git process gets: no system or global config, never a prompt. */
export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: GIT_HOME,
    XDG_CONFIG_HOME: GIT_HOME,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    GIT_NO_REPLACE_OBJECTS: '1',
    // Everything git writes in a repository is the service user's alone (0600 files, 0700
    // directories, read-only objects 0400), whatever the umask; repositories made before this
    // setting existed get it too, since it is not read from their config (docs/operating.md#files-under-data_dir).
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'core.sharedRepository',
    GIT_CONFIG_VALUE_0: '0600',
    ...extra,
  };
}

const CONFIG_KEY = /^[a-z][a-z0-9]*\.[a-zA-Z][a-zA-Z0-9]*$/;

/** The argv for a command, after checking the subcommand and the arguments' placement. */
export function buildArgv(cmd: GitCommand, gitDir?: string): string[] {
  if (!ALLOWED_SUBCOMMANDS.has(cmd.name)) throw new GitError(`git subcommand not allowed: ${cmd.name}`);
  const argv: string[] = [];
  for (const [key, value] of cmd.config ?? []) {
    if (!CONFIG_KEY.test(key)) throw new GitError(`git config key not allowed: ${key}`);
    argv.push('-c', `${key}=${value}`);
  }
  if (gitDir) argv.push(`--git-dir=${gitDir}`);
  argv.push(cmd.name);
  if (cmd.action !== undefined) {
    if (!/^[a-z][a-z-]*$/.test(cmd.action)) throw new GitError(`git action not allowed: ${cmd.action}`);
    argv.push(cmd.action);
  }
  argv.push(...(cmd.flags ?? []));
  if (cmd.args && cmd.args.length > 0) argv.push('--end-of-options', ...cmd.args);
  if (cmd.paths && cmd.paths.length > 0) argv.push('--', ...cmd.paths);
  for (const flag of cmd.flags ?? []) {
    // Flags are ours; a flag without a leading '-' is probably a request value in the wrong slot.
    if (!flag.startsWith('-')) throw new GitError(`git flag must start with '-': ${flag}`);
  }
  return argv;
}

let started = 0;

/** git processes this process has started so far: tests use it to prove a read path spawns none. */
export function gitProcessesStarted(): number {
  return started;
}

/** Starts git with piped stdio for streaming callers (transport, cat-file, diff). */
export function spawnGit(cmd: GitCommand, opts: Omit<GitRunOptions, 'stdin' | 'okExitCodes' | 'maxStdoutBytes'> = {}): ChildProcess {
  const argv = buildArgv(cmd, opts.gitDir);
  const spawnOpts: SpawnOptions = { env: gitEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'], signal: opts.signal, killSignal: 'SIGKILL' };
  if (opts.timeoutMs) spawnOpts.timeout = opts.timeoutMs;
  started++;
  const child = spawn('git', argv, spawnOpts);
  // Set before the caller feeds git anything, so the children git starts for it inherit it.
  if (opts.oomScoreAdj !== undefined && child.pid) {
    try {
      writeFileSync(`/proc/${child.pid}/oom_score_adj`, String(opts.oomScoreAdj));
    } catch {
      // Best effort, as in the git helper (runner.ts): no /proc, or a git that ended already.
    }
  }
  return child;
}

/** oom_score_adj's maximum: the kernel's first choice when memory runs out (housekeeping's gits). */
export const OOM_SCORE_ADJ_MAX = 1000;

let clientGitAdj: number | undefined;

/**
 * oom_score_adj for a git that serves one client (a clone's or push's, an archive): halfway from
 * git-storage's own to the maximum, so that when memory runs out the kernel takes such a git (one
 * client's request fails, and its push's quarantine goes with it) before git-storage itself (every
 * request and every push in flight), and a housekeeping git before either. Only ever a raise,
 * which needs no privilege (docs/decisions/housekeeping.md#memory).
 */
export function clientGitOomScoreAdj(): number {
  if (clientGitAdj === undefined) {
    let own = 0;
    try {
      own = Number(readFileSync('/proc/self/oom_score_adj', 'utf8').trim()) || 0;
    } catch {
      // No /proc: the value is never written either.
    }
    clientGitAdj = own + Math.ceil((OOM_SCORE_ADJ_MAX - own) / 2);
  }
  return clientGitAdj;
}

const runner = new GitRunner();
const helperStreams = new HelperStreams(runner);

/**
 * Starts git with piped stdio like spawnGit, but through the git helper when it is ready, so
 * this process does not fork (services/git-storage/README.md#git-from-a-helper-process): the
 * transport's and archives' gits, one or two per clone or push. Otherwise, or when the helper
 * could not start it, here as spawnGit does (and the helper is started for the next one).
 */
export async function spawnGitStream(cmd: GitCommand, opts: Pick<GitRunOptions, 'gitDir' | 'env' | 'oomScoreAdj' | 'timeoutMs' | 'signal'> = {}): Promise<GitChild> {
  const viaHelper = opts.signal?.aborted ? undefined : helperStreams.spawn(buildArgv(cmd, opts.gitDir), gitEnv(opts.env), opts.oomScoreAdj);
  if (viaHelper) {
    try {
      const child = await viaHelper;
      started++;
      stopWhenDue(child, opts);
      return child;
    } catch {
      // Nothing ran: start it here.
    }
  }
  return spawnGit(cmd, opts);
}

/** `timeoutMs` and `signal` for a git the helper started, as spawn's own options do: SIGKILL. */
function stopWhenDue(child: GitChild, opts: Pick<GitRunOptions, 'timeoutMs' | 'signal'>): void {
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const timer = opts.timeoutMs ? setTimeout(stop, opts.timeoutMs) : undefined;
  timer?.unref();
  if (opts.signal?.aborted) stop();
  else opts.signal?.addEventListener('abort', stop, { once: true });
  child.once('exit', () => {
    if (timer) clearTimeout(timer);
    opts.signal?.removeEventListener('abort', stop);
  });
}

/** The runner behind runGit (tests: whether its helper runs, starting it, letting it go). */
export function gitHelper(): Pick<GitRunner, 'pid' | 'close' | 'warm'> {
  return runner;
}

/**
 * Runs git to completion and collects its output; a non-zero exit becomes a typed GitError. The
 * process is started by the git helper (`runner.ts`), never by this one.
 */
export async function runGit(cmd: GitCommand, opts: GitRunOptions = {}): Promise<GitResult> {
  const argv = buildArgv(cmd, opts.gitDir);
  const timeoutMs = opts.timeoutMs ?? 60_000;
  if (opts.signal?.aborted) throw new GitCancelledError(`git ${cmd.name} cancelled`);
  started++;
  const stdin = typeof opts.stdin === 'string' ? Buffer.from(opts.stdin) : (opts.stdin ?? Buffer.alloc(0));
  // GIT_FLUSH=0: the output is collected whole, so git need not flush it a line at a time into the
  // pipe, as rev-list and log otherwise do (93 MB of rev-list at 1M commits: 254,571 reads, 20,317 without).
  const o = await runner.run({ argv, env: gitEnv({ GIT_FLUSH: '0', ...opts.env }), stdin, timeoutMs, maxStdoutBytes: opts.maxStdoutBytes, niceness: opts.niceness, oomScoreAdj: opts.oomScoreAdj }, opts.signal);
  if (o.stopped === 'timeout') throw new GitTimeoutError(`git ${cmd.name} timed out after ${timeoutMs} ms`);
  if (o.stopped === 'cancelled') throw new GitCancelledError(`git ${cmd.name} cancelled`);
  if (o.stopped === 'too-big') throw new GitOutputTooBigError(`git ${cmd.name} output exceeded ${opts.maxStdoutBytes} bytes`);
  if (o.stopped === 'start') throw new GitError(`git ${cmd.name} could not start: ${o.message}`);
  const exitCode = o.code ?? -1;
  if (exitCode === 0 || opts.okExitCodes?.includes(exitCode)) return { stdout: o.stdout, stderr: o.stderr, exitCode };
  throw classifyGitFailure(cmd.name, o.stderr, o.code);
}
