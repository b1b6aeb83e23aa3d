import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';

/**
 * Renovate (npm `renovate`, major 39: the last that declares Node 20) lives in test/renovate with
 * its own package.json and lockfile, outside the workspaces, so it does not weigh on everyone's
 * `npm ci`. `.ci/run` installs it; a developer's first run of the test installs it the same way.
 */
export const RENOVATE_DIR = fileURLToPath(new URL('../../../test/renovate/', import.meta.url));
export const RENOVATE_VERSION_MAJOR = 39;
const RENOVATE_BIN = path.join(RENOVATE_DIR, 'node_modules/renovate/dist/renovate.js');

/** `npm ci` in test/renovate when its node_modules are missing or older than its lockfile. */
export function ensureRenovateInstalled(): void {
  const lock = path.join(RENOVATE_DIR, 'package-lock.json');
  const installed = path.join(RENOVATE_DIR, 'node_modules/.package-lock.json');
  if (existsSync(RENOVATE_BIN) && existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) return;
  // --ignore-scripts: Renovate's optional native helpers (re2, sqlite) would fetch prebuilt binaries.
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: RENOVATE_DIR, stdio: 'inherit', timeout: 600_000 });
}

/** One request as Renovate counted it (its "HTTP full statistics"). */
export interface RenovateRequest {
  method: string;
  /** Path and query, without the origin. */
  path: string;
  status: number;
}

export interface RenovateRun {
  exitCode: number | null;
  /** Log entries at warn level or above, as `msg` plus the error's message. */
  problems: string[];
  /** What `Repository result: …` said (`done` when the repository was processed). */
  repositoryResult: string | undefined;
  requests: RenovateRequest[];
  /** Every JSON log line. */
  log: Array<Record<string, unknown>>;
}

export interface RenovateOptions {
  endpoint: string;
  token: string;
  repository: string;
  /** Renovate's base directory (clones, caches); kept between runs so its repository cache is. */
  baseDir: string;
  extraArgs?: string[];
}

/**
 * Runs Renovate as its users do, in an empty directory (no config.js) with a HOME of its own,
 * with only the flags that keep it on this machine and make a first run act:
 * `--onboarding=false` (no onboarding pull request), JSON logs at
 * trace level (for its own count of requests), the repository cache on disk (read back by
 * readPrCache). HTTP(S)_PROXY points at a closed port with NO_PROXY for loopback, so a request
 * that would leave the machine fails at once instead of waiting on the network.
 */
export function runRenovate(opts: RenovateOptions): Promise<RenovateRun> {
  const home = mkdtempSync(path.join(tmpdir(), 'githost-renovate-home-'));
  const args = [
    RENOVATE_BIN,
    '--platform=gitea',
    `--endpoint=${opts.endpoint}`,
    `--token=${opts.token}`,
    '--onboarding=false',
    '--require-config=optional',
    '--repository-cache=enabled',
    `--base-dir=${opts.baseDir}`,
    `--cache-dir=${path.join(opts.baseDir, 'cache')}`,
    '--git-author=Renovate Bot <renovate-bot@example.com>',
    ...(opts.extraArgs ?? []),
    opts.repository,
  ];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    LANG: 'C.UTF-8',
    LOG_LEVEL: 'trace',
    LOG_FORMAT: 'json',
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost,::1',
    // re2 is a native module, not built with --ignore-scripts; Renovate's documented fallback is RegExp.
    RENOVATE_X_IGNORE_RE2: 'true',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('error', reject);
    child.once('close', (exitCode) => {
      rmSync(home, { recursive: true, force: true });
      // RENOVATE_LOG_COPY=<file>: keep Renovate's JSON log, to see what it asked for.
      if (process.env.RENOVATE_LOG_COPY) appendFileSync(process.env.RENOVATE_LOG_COPY, out);
      const log: Array<Record<string, unknown>> = [];
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          log.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // a partial line: not a log entry
        }
      }
      if (log.length === 0) return reject(new Error(`renovate wrote no JSON log (exit ${exitCode}): ${err || out}`));
      resolve({ exitCode, log, problems: problemsOf(log), repositoryResult: repositoryResultOf(log), requests: requestsOf(log) });
    });
  });
}

function problemsOf(log: Array<Record<string, unknown>>): string[] {
  return log
    .filter((e) => typeof e.level === 'number' && e.level >= 40)
    .map((e) => {
      const err = e.err as { message?: string; statusCode?: number; url?: string } | undefined;
      return [e.msg, err?.message, err?.statusCode, err?.url].filter((x) => x !== undefined).join(' | ');
    });
}

function repositoryResultOf(log: Array<Record<string, unknown>>): string | undefined {
  for (const e of log) {
    const m = /^Repository result: ([^,]+),/.exec(String(e.msg));
    if (m) return m[1];
  }
  return undefined;
}

/** "HTTP full statistics" lists each request as `METHOD URL STATUS REQ_MS QUEUE_MS`. */
function requestsOf(log: Array<Record<string, unknown>>): RenovateRequest[] {
  const stats = log.find((e) => e.msg === 'HTTP full statistics');
  const raw = (stats?.rawRequests as string[] | undefined) ?? [];
  return raw.map((line) => {
    const [method, url, status] = line.split(' ');
    const u = new URL(url!);
    return { method: method!, path: u.pathname + u.search, status: Number(status) };
  });
}

/**
 * Renovate's cache of the bot's pull requests (`platform.gitea.pullRequestsCache.items`, by
 * number) from its repository cache file: a JSON record whose payload is brotli, base64.
 */
export function readPrCache(baseDir: string, repository: string): Record<number, Record<string, unknown>> {
  const file = path.join(baseDir, 'cache', 'renovate', 'repository', 'gitea', `${repository}.json`);
  const record = JSON.parse(readFileSync(file, 'utf8')) as { payload: string };
  const payload = JSON.parse(brotliDecompressSync(Buffer.from(record.payload, 'base64')).toString('utf8')) as {
    platform?: { gitea?: { pullRequestsCache?: { items?: Record<number, Record<string, unknown>> } } };
  };
  return payload.platform?.gitea?.pullRequestsCache?.items ?? {};
}
