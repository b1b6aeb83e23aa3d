import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRepo, type GeneratedRepo } from '../src/generate-repo.js';
import { gitText } from '../src/git.js';
import { DEFAULT_PARAMS, type RepoParams } from '../src/params.js';

const tiny: RepoParams = {
  ...DEFAULT_PARAMS,
  commits: 60,
  files: 200,
  maxRegularBlob: 2048,
  bigFiles: 1,
  maxBlob: 1024 * 1024 + 10,
  wideEntries: 30,
  smallEntries: 6,
  diffSizes: [1, 7],
};

describe('generate-repo', () => {
  const dirs: string[] = [];
  const generate = async (params: RepoParams): Promise<GeneratedRepo> => {
    const dir = mkdtempSync(join(tmpdir(), 'githost-bench-'));
    dirs.push(dir);
    return ensureRepo(params, { dir });
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('when the same parameters are generated twice, then the histories are identical and have the planned shape', async () => {
    const [a, b] = [await generate(tiny), await generate(tiny)];
    expect(b.head).toBe(a.head);
    const mainCommits = Number(await gitText(['rev-list', '--count', 'main'], a.path));
    expect(mainCommits).toBe(tiny.commits);
    // main, plus three topic commits and one commit per diff branch
    expect(a.commits).toBe(tiny.commits + 3 + tiny.diffSizes.length);
    expect(a.files).toBe(tiny.files);
    const lsTree = async (path: string): Promise<string[]> => (await gitText(['ls-tree', '--end-of-options', `main:${path}`], a.path)).split('\n');
    expect(await lsTree(a.known.smallDir)).toHaveLength(tiny.smallEntries);
    expect(await lsTree(a.known.wideDir)).toHaveLength(tiny.wideEntries);
    expect(a.known.deepDir.split('/')).toHaveLength(8);
    expect(Number(await gitText(['cat-file', '-s', `main:${a.known.blob10k}`], a.path))).toBe(10 * 1024);
    expect(Number(await gitText(['cat-file', '-s', `main:${a.known.blob1m}`], a.path))).toBe(1024 * 1024);
    const changed = await gitText(['diff', '--name-only', 'main', 'topic/diff-7', '--'], a.path);
    expect(changed.split('\n')).toHaveLength(7);
    expect(await gitText(['tag', '--list'], a.path)).toBe('v0.1\nv1.0\nv2.0');
  });

  it('when a different seed is used, then the history differs', async () => {
    const a = await generate(tiny);
    const c = await generate({ ...tiny, seed: tiny.seed + 1 });
    expect(c.head).not.toBe(a.head);
    expect(c.files).toBe(a.files);
  });
});
