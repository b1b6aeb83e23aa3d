import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRepo } from '../src/generate-repo.js';
import { gitText } from '../src/git.js';
import { buildMergeFixtures } from '../src/merge-fixtures.js';
import { DEFAULT_PARAMS, type RepoParams } from '../src/params.js';

const tiny: RepoParams = { ...DEFAULT_PARAMS, commits: 20, files: 50, maxRegularBlob: 1024, bigFiles: 0, wideEntries: 10, smallEntries: 4, diffSizes: [1] };

describe('merge-fixtures', () => {
  const dir = mkdtempSync(join(tmpdir(), 'githost-bench-fixtures-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when the tip is dated years ahead (a long generated history), then every fixture commit is dated after it', async () => {
    const repo = await ensureRepo(tiny, { dir });
    // A tip as far ahead as a million generated commits (5 minutes apart) puts main's: 2030.
    const tipTime = 1_900_000_000;
    const tree = await gitText(['rev-parse', `${repo.head}^{tree}`], repo.path);
    const env = { ...process.env, GIT_AUTHOR_DATE: `${tipTime} +0000`, GIT_COMMITTER_DATE: `${tipTime} +0000` };
    const head = execFileSync('git', ['commit-tree', '-p', repo.head, '-m', 'far ahead', tree], { cwd: repo.path, env }).toString().trim();

    const fixtures = join(dir, 'fixtures.git');
    const pairs = await buildMergeFixtures({ ...repo, head }, fixtures, 2);

    expect(pairs).toHaveLength(4);
    for (const { source, target } of pairs) {
      for (const ref of [source, target]) {
        const [time, parent] = (await gitText(['show', '-s', '--format=%ct %P', `refs/heads/${ref}`], fixtures)).split(' ');
        // A fast-forward's target is the tip itself; every other fixture is one commit on it.
        if (ref.startsWith('bench/ff-target-')) expect(Number(time)).toBe(tipTime);
        else {
          expect(parent).toBe(head);
          expect(Number(time)).toBeGreaterThan(tipTime);
        }
      }
    }
  });
});
