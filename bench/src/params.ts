/** Parameters of the synthetic repository; the cache key is derived from all of them. */
export interface RepoParams {
  commits: number;
  files: number;
  /** Deepest directory nesting (the known deep directory has exactly this many segments). */
  depth: number;
  /** Regular files are log-uniform in [minBlob, maxRegularBlob]. */
  minBlob: number;
  maxRegularBlob: number;
  /** A handful of MB-sized files, log-uniform in [1 MiB, maxBlob], the first exactly maxBlob. */
  bigFiles: number;
  maxBlob: number;
  binaryPercent: number;
  wideEntries: number;
  smallEntries: number;
  /** One branch per size, forked from the main tip, changing that many files (merge-request bench). */
  diffSizes: number[];
  seed: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_PARAMS: RepoParams = {
  commits: 50_000,
  files: 20_000,
  depth: 8,
  minBlob: 10,
  maxRegularBlob: 100 * 1024,
  bigFiles: 8,
  maxBlob: 5 * MiB,
  binaryPercent: 1,
  wideEntries: 500,
  smallEntries: 20,
  diffSizes: [1, 50, 500, 3200],
  seed: 20_261_122,
};

/** BENCH_QUICK=1: small enough for a development run in seconds. */
export const QUICK_PARAMS: RepoParams = {
  ...DEFAULT_PARAMS,
  commits: 2_000,
  files: 4_000,
  maxRegularBlob: 16 * 1024,
  bigFiles: 2,
  maxBlob: 2 * MiB,
};

const ENV_KEYS: Record<string, keyof RepoParams> = {
  BENCH_COMMITS: 'commits',
  BENCH_FILES: 'files',
  BENCH_DEPTH: 'depth',
  BENCH_MIN_BLOB: 'minBlob',
  BENCH_MAX_REGULAR_BLOB: 'maxRegularBlob',
  BENCH_BIG_FILES: 'bigFiles',
  BENCH_MAX_BLOB: 'maxBlob',
  BENCH_BINARY_PERCENT: 'binaryPercent',
  BENCH_WIDE_ENTRIES: 'wideEntries',
  BENCH_SMALL_ENTRIES: 'smallEntries',
  BENCH_SEED: 'seed',
};

/**
 * Defaults (or the quick set), then environment variables, then `--name=value` arguments
 * (camelCase names as in RepoParams, e.g. `--commits=1000 --diffSizes=1,50`).
 */
export function resolveParams(env: NodeJS.ProcessEnv, argv: string[] = []): RepoParams {
  const params: RepoParams = { ...(isQuick(env) ? QUICK_PARAMS : DEFAULT_PARAMS) };
  for (const [name, key] of Object.entries(ENV_KEYS)) {
    const value = env[name];
    if (value !== undefined && value !== '') setParam(params, key, value);
  }
  if (env.BENCH_DIFF_SIZES) params.diffSizes = parseList(env.BENCH_DIFF_SIZES);
  for (const arg of argv) {
    const m = /^--([A-Za-z]+)=(.*)$/.exec(arg);
    if (!m) continue;
    const key = m[1] as keyof RepoParams;
    if (!(key in params)) throw new Error(`unknown generator option --${key}`);
    setParam(params, key, m[2]!);
  }
  validate(params);
  return params;
}

export function isQuick(env: NodeJS.ProcessEnv): boolean {
  return env.BENCH_QUICK === '1' || env.BENCH_QUICK === 'true';
}

function setParam(params: RepoParams, key: keyof RepoParams, value: string): void {
  if (key === 'diffSizes') {
    params.diffSizes = parseList(value);
    return;
  }
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`invalid value for ${key}: ${value}`);
  params[key] = Math.floor(n);
}

function parseList(value: string): number[] {
  return value.split(',').filter(Boolean).map((v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`invalid diff size: ${v}`);
    return n;
  });
}

function validate(p: RepoParams): void {
  if (p.commits < 1) throw new Error('commits must be at least 1');
  if (p.depth < 2) throw new Error('depth must be at least 2');
  if (p.smallEntries < 1 || p.wideEntries < 1) throw new Error('smallEntries and wideEntries must be at least 1');
  if (p.minBlob < 1 || p.maxRegularBlob < p.minBlob) throw new Error('need 1 <= minBlob <= maxRegularBlob');
}
