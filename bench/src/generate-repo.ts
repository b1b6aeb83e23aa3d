import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { versionedContent } from './content.js';
import { FastImportWriter } from './fast-import-writer.js';
import { git, gitText } from './git.js';
import { knownPaths, planFiles, type KnownPaths, type PlannedFile } from './layout.js';
import { resolveParams, type RepoParams } from './params.js';
import { Prng } from './prng.js';
import { workDir } from './paths.js';

/** Bump when the generated content changes, so stale caches are not reused. */
const GENERATOR_VERSION = 2;

export interface GeneratedRepo {
  path: string;
  key: string;
  params: RepoParams;
  known: KnownPaths;
  head: string;
  commits: number;
  files: number;
  packBytes: number;
  branches: string[];
  tags: string[];
  /** Branches forked from the main tip that change exactly `files` files. */
  diffBranches: Array<{ branch: string; files: number }>;
  generatedMs: number;
}

export function cacheKey(params: RepoParams): string {
  return createHash('sha256').update(JSON.stringify({ v: GENERATOR_VERSION, params })).digest('hex').slice(0, 16);
}

/** The cached repository for these parameters, generated first when absent. */
export async function ensureRepo(params: RepoParams, opts: { dir?: string; log?: (msg: string) => void } = {}): Promise<GeneratedRepo> {
  const dir = opts.dir ?? workDir('repos');
  const key = cacheKey(params);
  const path = join(dir, `${key}.git`);
  const manifestPath = join(dir, `${key}.json`);
  if (existsSync(manifestPath) && existsSync(path)) return JSON.parse(readFileSync(manifestPath, 'utf8')) as GeneratedRepo;
  const tmp = `${path}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const started = Date.now();
  opts.log?.(`generating repository ${key} (${params.commits} commits, ${params.files} files) ...`);
  try {
    await git(['init', '-q', '--bare', '-b', 'main', tmp]);
    const plan = await importHistory(tmp, params);
    await finishRepository(tmp);
    const repo = await describe(tmp, params, key, plan, Date.now() - started);
    rmSync(path, { recursive: true, force: true });
    renameSync(tmp, path);
    repo.path = path;
    writeFileSync(manifestPath, JSON.stringify(repo, null, 2));
    opts.log?.(`generated in ${(repo.generatedMs / 1000).toFixed(1)} s: pack ${(repo.packBytes / 1048576).toFixed(1)} MiB`);
    return repo;
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

interface ImportPlan {
  branches: string[];
  tags: string[];
  diffBranches: Array<{ branch: string; files: number }>;
}

const AUTHORS = ['Ada Lovelace <ada@example.com>', 'Grace Hopper <grace@example.com>', 'Linus Torvalds <linus@example.com>',
  'Margaret Hamilton <margaret@example.com>', 'Ken Thompson <ken@example.com>', 'Barbara Liskov <barbara@example.com>'];
const EPOCH = 1_600_000_000;
const SIDE_EVERY = 1000;

async function importHistory(repoPath: string, params: RepoParams): Promise<ImportPlan> {
  const files = planFiles(params);
  const rng = new Prng(params.seed ^ 0x5eed);
  const modifiable = files.map((f, i) => (f.modifiable ? i : -1)).filter((i) => i >= 0);
  const versions = new Int32Array(files.length);
  const child = spawn('git', ['fast-import', '--quiet', '--done'], { cwd: repoPath, stdio: ['pipe', 'ignore', 'pipe'] });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => stderr.push(b));
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? -1));
  });
  const w = new FastImportWriter(child.stdin);
  let mark = 0;
  let produced = 0;

  const emitCommit = async (ref: string, changes: number[], message: string, from?: number, merge?: number): Promise<number> => {
    const m = ++mark;
    const who = AUTHORS[produced % AUTHORS.length]!;
    const when = `${EPOCH + produced * 300} +0000`;
    w.line(`commit ${ref}`);
    w.line(`mark :${m}`);
    w.line(`author ${who} ${when}`);
    w.line(`committer ${who} ${when}`);
    w.data(Buffer.from(message));
    if (from !== undefined) w.line(`from :${from}`);
    if (merge !== undefined) w.line(`merge :${merge}`);
    for (const index of changes) {
      const file = files[index]!;
      w.line(`M ${file.mode} inline ${file.path}`);
      w.data(contentOf(file, versions[index]!));
      await w.maybeFlush();
    }
    w.line('');
    produced++;
    await w.maybeFlush();
    return m;
  };
  const touch = (count: number): number[] => {
    const picked = new Set<number>();
    while (picked.size < Math.min(count, modifiable.length)) picked.add(rng.pick(modifiable));
    for (const i of picked) versions[i]!++;
    return [...picked];
  };
  const message = (changes: number[]): string => {
    const first = files[changes[0]!]?.path ?? 'tree';
    return `Update ${first.slice(first.lastIndexOf('/') + 1)}${changes.length > 1 ? ` and ${changes.length - 1} more` : ''}\n\nChange ${produced} of the synthetic history.\n`;
  };

  const plan: ImportPlan = { branches: ['main'], tags: [], diffBranches: [] };
  const lightweightTag = (tip: number): void => {
    w.line('reset refs/tags/v0.1');
    w.line(`from :${tip}`);
    w.line('');
    plan.tags.push('v0.1');
  };
  const milestones: Array<[number, (tip: number) => void]> = [
    [Math.floor(params.commits * 0.1), lightweightTag],
    [Math.floor(params.commits * 0.4), (tip) => release(tip, '1')],
    [Math.floor(params.commits * 0.8), (tip) => release(tip, '2')],
    [Math.floor(params.commits * 0.95), (tip) => { topicFork = tip; }],
  ];
  const release = (tip: number, major: string): void => {
    w.line(`tag v${major}.0`);
    w.line(`from :${tip}`);
    w.line(`tagger ${AUTHORS[0]} ${EPOCH + produced * 300} +0000`);
    w.data(Buffer.from(`Release ${major}.0\n`));
    w.line(`reset refs/heads/release/${major}.x`);
    w.line(`from :${tip}`);
    w.line('');
    plan.tags.push(`v${major}.0`);
    plan.branches.push(`release/${major}.x`);
  };

  let mainTip = await emitCommit('refs/heads/main', files.map((_, i) => i), 'Initial import\n');
  let topicFork = mainTip;
  const afterMain = (): void => {
    while (milestones.length > 0 && milestones[0]![0] <= produced) milestones.shift()![1](mainTip);
  };
  while (produced < params.commits) {
    if (produced % SIDE_EVERY === SIDE_EVERY / 2 && params.commits - produced >= 6) {
      // A short topic branch merged back with a real merge commit, as histories usually have.
      const fork = mainTip;
      for (let k = 0; k < 2; k++) {
        const changes = touch(rng.int(1, 3));
        mainTip = await emitCommit('refs/heads/main', changes, message(changes));
        afterMain();
      }
      let sideTip = fork;
      const sideChanges = new Set<number>();
      for (let k = 0; k < 3; k++) {
        const changes = touch(rng.int(1, 3));
        changes.forEach((c) => sideChanges.add(c));
        sideTip = await emitCommit('refs/heads/_side', changes, message(changes), k === 0 ? fork : undefined);
      }
      mainTip = await emitCommit('refs/heads/main', [...sideChanges], `Merge branch 'side-${produced}'\n`, undefined, sideTip);
      afterMain();
      continue;
    }
    const changes = touch(rng.int(1, 3));
    mainTip = await emitCommit('refs/heads/main', changes, message(changes));
    afterMain();
  }

  for (let k = 0; k < 3; k++) {
    const changes = touch(rng.int(1, 3));
    await emitCommit('refs/heads/feature/topic', changes, message(changes), k === 0 ? topicFork : undefined);
  }
  plan.branches.push('feature/topic');
  for (const size of params.diffSizes) {
    const count = Math.min(size, modifiable.length);
    const changes = touch(count);
    const branch = `topic/diff-${size}`;
    await emitCommit(`refs/heads/${branch}`, changes, `Change ${count} files\n`, mainTip);
    plan.branches.push(branch);
    plan.diffBranches.push({ branch, files: count });
  }
  w.line('done');
  await w.flush();
  child.stdin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`git fast-import failed (${code}): ${Buffer.concat(stderr).toString().trim()}`);
  return plan;
}

function contentOf(file: PlannedFile, version: number): Buffer {
  if (file.target !== undefined) return Buffer.from(file.target);
  return versionedContent(file.seed, file.size, file.binary, version);
}

/** One pack, packed refs and a split commit-graph: the state git-storage's housekeeping keeps. */
async function finishRepository(repoPath: string): Promise<void> {
  await git(['update-ref', '-d', 'refs/heads/_side'], { cwd: repoPath });
  // -f: fast-import stores every blob whole and a plain repack would reuse those, leaving a pack
  // five times larger than any real repository with this history.
  await git(['repack', '-a', '-d', '-f', '-q'], { cwd: repoPath });
  await git(['pack-refs', '--all'], { cwd: repoPath });
  await git(['commit-graph', 'write', '--reachable', '--split'], { cwd: repoPath });
}

async function describe(repoPath: string, params: RepoParams, key: string, plan: ImportPlan, generatedMs: number): Promise<GeneratedRepo> {
  const head = await gitText(['rev-parse', '--verify', '--end-of-options', 'refs/heads/main'], repoPath);
  const commits = Number(await gitText(['rev-list', '--count', '--all'], repoPath));
  const files = (await git(['ls-tree', '-r', '--name-only', '--end-of-options', head], { cwd: repoPath })).stdout.toString().split('\n').filter(Boolean).length;
  const counts = await gitText(['count-objects', '-v'], repoPath);
  const sizePack = Number(/size-pack: (\d+)/.exec(counts)?.[1] ?? 0) * 1024;
  return { path: repoPath, key, params, known: knownPaths(params), head, commits, files, packBytes: sizePack, ...plan, generatedMs };
}

/** CLI: `node dist/generate-repo.js [--commits=N --files=N ...]` prints the manifest. */
async function cli(): Promise<void> {
  const params = resolveParams(process.env, process.argv.slice(2));
  const repo = await ensureRepo(params, { log: (m) => console.error(m) });
  console.log(JSON.stringify(repo, null, 2));
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  cli().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
