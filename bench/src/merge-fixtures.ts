import { spawn } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { FastImportWriter } from './fast-import-writer.js';
import { git, gitText } from './git.js';
import { planFiles } from './layout.js';
import type { GeneratedRepo } from './generate-repo.js';

export interface MergePair {
  kind: 'ff' | 'three-way';
  source: string;
  target: string;
}

/**
 * A scratch bare repository borrowing the generated one's objects (alternates), holding `count`
 * fast-forward pairs (target = main tip, source one commit ahead) and `count` three-way pairs
 * (target and source each one commit ahead of main, changing different existing files, so they
 * merge cleanly). Built with one fast-import stream.
 *
 * Each commit is dated after main's tip, as a new commit is. One dated before its parent (a fixed
 * date once, before the tip of a history past ~330k generated commits) made git's date-ordered
 * walks from it to the refs cover the whole history: receive-pack's connectivity check and
 * githost's push event, 0.9-1.0 s each at 1M commits against 10-60 ms
 * (docs/decisions/history-depth.md#a-commit-dated-before-its-parent-walks-the-whole-history).
 */
export async function buildMergeFixtures(repo: GeneratedRepo, scratchPath: string, count: number): Promise<MergePair[]> {
  await git(['init', '-q', '--bare', scratchPath]);
  mkdirSync(join(scratchPath, 'objects', 'info'), { recursive: true });
  writeFileSync(join(scratchPath, 'objects', 'info', 'alternates'), `${join(repo.path, 'objects')}\n`);
  const files = planFiles(repo.params).filter((f) => f.modifiable && !f.binary);
  const child = spawn('git', ['fast-import', '--quiet', '--done'], { cwd: scratchPath, stdio: ['pipe', 'ignore', 'pipe'] });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => stderr.push(b));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  const w = new FastImportWriter(child.stdin);
  const pairs: MergePair[] = [];
  let time = Number(await gitText(['show', '-s', '--format=%ct', repo.head], repo.path)) + 300;
  const commit = (ref: string, path: string, text: string): void => {
    w.line(`commit ${ref}`);
    w.line(`committer Bench <bench@example.com> ${time++} +0000`);
    w.data(Buffer.from(`${text}\n`));
    w.line(`from ${repo.head}`);
    w.line(`M 100644 inline ${path}`);
    w.data(Buffer.from(`${text}\n`));
    w.line('');
  };
  const fileAt = (i: number): string => files[(i * 7919) % files.length]!.path;
  for (let i = 0; i < count; i++) {
    w.line(`reset refs/heads/bench/ff-target-${i}`);
    w.line(`from ${repo.head}`);
    w.line('');
    commit(`refs/heads/bench/ff-source-${i}`, fileAt(3 * i), `fast-forward ${i}`);
    pairs.push({ kind: 'ff', source: `bench/ff-source-${i}`, target: `bench/ff-target-${i}` });
    commit(`refs/heads/bench/mw-target-${i}`, fileAt(3 * i + 1), `target side ${i}`);
    commit(`refs/heads/bench/mw-source-${i}`, fileAt(3 * i + 2), `source side ${i}`);
    pairs.push({ kind: 'three-way', source: `bench/mw-source-${i}`, target: `bench/mw-target-${i}` });
    await w.maybeFlush();
  }
  w.line('done');
  await w.flush();
  child.stdin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`fast-import of merge fixtures failed: ${Buffer.concat(stderr).toString()}`);
  return pairs;
}

/**
 * The merge done by hand with the commands CONTRACT §6 names: resolve both tips, the ancestry
 * check, then `update-ref` (fast-forward) or `merge-tree --write-tree` + `commit-tree` +
 * `update-ref` with the old value (three-way).
 */
export async function rawMerge(repoPath: string, pair: MergePair): Promise<'fast-forward' | 'merge-commit'> {
  // full ref names the bench made itself; rev-parse would echo --end-of-options back as a line
  const tips = (await git(['rev-parse', `refs/heads/${pair.source}`, `refs/heads/${pair.target}`], { cwd: repoPath })).stdout.toString().trim().split('\n');
  const [source, target] = [tips[0]!, tips[1]!];
  const ancestor = await git(['merge-base', '--is-ancestor', target, source], { cwd: repoPath, allowFail: true });
  if (ancestor.code === 0) {
    await git(['update-ref', `refs/heads/${pair.target}`, source, target], { cwd: repoPath });
    return 'fast-forward';
  }
  const tree = (await git(['merge-tree', '--write-tree', '--end-of-options', target, source], { cwd: repoPath })).stdout.toString().split('\n')[0]!;
  const env = { GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
  const message = `Merge branch '${pair.source}' into ${pair.target}\n`;
  const commit = (await git(['commit-tree', tree, '-p', target, '-p', source, '-F', '-'], { cwd: repoPath, env, input: message })).stdout.toString().trim();
  await git(['update-ref', `refs/heads/${pair.target}`, commit, target], { cwd: repoPath });
  return 'merge-commit';
}
