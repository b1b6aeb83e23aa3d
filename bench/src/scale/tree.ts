import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bigRepository } from '../big-pages.js';
import type { BenchContext } from '../context.js';
import { ensureRepo } from '../generate-repo.js';
import { git } from '../git.js';
import { DEFAULT_PARAMS } from '../params.js';
import { workDir } from '../paths.js';
import type { RunningService } from '../service.js';
import { AxisTable } from './axis-table.js';
import { sized, type Ladder } from './ladder.js';
import { measurePages, QUIET_GIT, timedGit } from './requests.js';
import type { SignedIn } from './signed-in.js';

/**
 * Trees of 2k / 20k / 200k files (the generator's layout, a short history) and one directory of
 * 1k / 10k / 100k entries (big-pages' repository): tree, deep tree and blob at each size.
 */
export async function treeAxis(ctx: BenchContext, ladder: Ladder, service: RunningService, user: SignedIn, views: number): Promise<AxisTable> {
  const labels = new Map(ladder.steps.map((s) => [s, `${sized(2_000, s, ladder).toLocaleString('en-US')} files, dir of ${sized(1_000, s, ladder).toLocaleString('en-US')}`]));
  const table = new AxisTable('Trees', labels);
  for (const step of ladder.steps) {
    try {
      const files = sized(2_000, step, ladder);
      const entries = sized(1_000, step, ladder);
      const log = (m: string): void => ctx.log(`scale trees ${files}: ${m}`);
      // The known directories stay the same size at every step: only the rest of the tree grows.
      const repo = await ensureRepo({ ...DEFAULT_PARAMS, commits: 100, files, maxRegularBlob: 16 * 1024, bigFiles: 1, maxBlob: 1024 * 1024, wideEntries: 100, diffSizes: [1] }, { log });
      service.rss.reset();
      const name = `tree-${files}`;
      await user.api.expect(201, 'POST', '/api/repos', { name });
      table.record('push --mirror (set-up)', 'none', step, { ms: await timedGit(['push', '-q', '--mirror', user.gitUrl(name)], repo.path) });
      const wide = `wide-${entries}`;
      const scratch = mkdtempSync(join(workDir('scratch'), 'scale-wide-'));
      try {
        await git(['init', '-q', '--bare'], { cwd: scratch, env: QUIET_GIT });
        await git(['fast-import', '--quiet', '--done'], { cwd: scratch, env: QUIET_GIT, input: bigRepository(entries, 0, 0) });
        await user.api.expect(201, 'POST', '/api/repos', { name: wide });
        await timedGit(['push', '-q', user.gitUrl(wide), 'main'], scratch);
      } catch (err) {
        table.failed('the wide directory', step, err);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
      const api = `/api/repos/${user.username}`;
      const web = `/${user.username}`;
      const { deepDir, blob10k, smallDir } = repo.known;
      await measurePages(table, step, service.url, [
        // The root's directories grow with the tree (the layout spreads files over files/12 of them).
        { row: 'API: tree root', path: `${api}/${name}/tree/main`, headers: user.bearer, target: 'answer' },
        { row: 'web: tree root', path: `${web}/${name}`, headers: user.cookie, target: 'answer' },
        { row: `API: small directory (${smallDir})`, path: `${api}/${name}/tree/main/${smallDir}`, headers: user.bearer, target: 'constant' },
        { row: `API: deep tree (${deepDir})`, path: `${api}/${name}/tree/main/${deepDir}`, headers: user.bearer, target: 'constant' },
        { row: 'web: deep tree', path: `${web}/${name}/-/tree/main/${deepDir}`, headers: user.cookie, target: 'constant' },
        { row: 'API: blob (10 KiB)', path: `${api}/${name}/blob/main/${blob10k}`, headers: user.bearer, target: 'constant' },
        { row: 'web: blob (10 KiB)', path: `${web}/${name}/-/blob/main/${blob10k}`, headers: user.cookie, target: 'constant' },
        { row: 'API: the one directory, whole', path: `${api}/${wide}/tree/main/huge`, headers: user.bearer, target: 'answer' },
        { row: 'API: the one directory, ?limit=1000', path: `${api}/${wide}/tree/main/huge?limit=1000`, headers: user.bearer, target: 'constant' },
        { row: 'web: the one directory', path: `${web}/${wide}/-/tree/main/huge`, headers: user.cookie, target: 'constant' },
      ], views, log);
    } catch (err) {
      table.failed('this size', step, err);
    }
    table.recordRss(step, service.rss.read());
  }
  return table;
}
