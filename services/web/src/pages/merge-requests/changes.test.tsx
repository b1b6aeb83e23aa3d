import { describe, expect, it } from '@jest/globals';
import { renderToString } from 'preact-render-to-string';
import { AppError } from '@githost/errors';
import type { MergeRequestDetail } from '../../clients/mr-types.js';
import type { DiffFile } from '../../clients/types.js';
import { ChangesBase, mrChangesOf } from './changes.js';

const SOURCE = 'a'.repeat(40);
const TARGET = 'b'.repeat(40);
const RECORDED = 'c'.repeat(40);
const BASE = 'd'.repeat(40);
const file = (path: string): DiffFile => ({ path, old_path: null, status: 'modified', old_mode: null, new_mode: null, old_sha: null, new_sha: null, additions: 1, deletions: 1, binary: false, patch: '@@ -1 +1 @@\n-a\n+b\n' });
/** The API's own diff (target tip to source tip): the target's later change shows there. */
const TIP_DIFF = [file('changed-on-target.txt'), file('app.ts')];

const mr = (over: Partial<MergeRequestDetail> = {}): MergeRequestDetail =>
  ({ number: 1, source_branch: 'feature', target_branch: 'main', source_sha: SOURCE, target_sha: TARGET, head_sha: SOURCE, diff: TIP_DIFF, diff_truncated: false, ...over }) as MergeRequestDetail;

/** The API as the page asks it: the paths asked, and a compare answer or refusal. */
function apiAnswering(answer: (path: string) => unknown) {
  const asked: string[] = [];
  return {
    asked,
    api: {
      get: async <T,>(path: string): Promise<T> => {
        asked.push(path);
        const a = answer(path);
        if (a instanceof Error) throw a;
        return a as T;
      },
    },
  };
}
const comparison = (head: string, files: DiffFile[]) => ({ base_sha: TARGET, head_sha: head, merge_base: BASE, diff: files, diff_truncated: false, commits: [], ahead_by: 1, behind_by: 1, status: 'diverged' });

describe('the changes a merge request page shows', () => {
  it('when both branches are there, then it asks one three-dot compare of the two tips the detail named and shows its diff, from the merge base', async () => {
    const { api, asked } = apiAnswering(() => comparison(SOURCE, [file('app.ts')]));
    const changes = await mrChangesOf(api, 'o', 'r', mr());
    expect(asked).toEqual([`/api/repos/o/r/compare/${TARGET}...${SOURCE}`]);
    expect(changes).toEqual({ base: 'merge-base', mergeBase: BASE, head: SOURCE, headIsRecorded: false, files: [file('app.ts')], truncated: false });
    const said = renderToString(<ChangesBase owner="o" name="r" mr={mr()} changes={changes} />).replace(/<[^>]+>/g, '');
    expect(said).toBe(`Changes from the merge base ${BASE.slice(0, 8)} of main and feature: what merging brings. Changes made on main since then are not shown.`);
  });

  it('when the source branch is gone, then the compare is to the head the merge request recorded, and the page says the branch is gone', async () => {
    const gone = mr({ source_sha: undefined, head_sha: RECORDED, diff: [] });
    const { api, asked } = apiAnswering(() => comparison(RECORDED, [file('app.ts')]));
    const changes = await mrChangesOf(api, 'o', 'r', gone);
    expect([asked, changes.base, changes.files]).toEqual([[`/api/repos/o/r/compare/${TARGET}...${RECORDED}`], 'merge-base', [file('app.ts')]]);
    expect(renderToString(<ChangesBase owner="o" name="r" mr={gone} changes={changes} />).replace(/<[^>]+>/g, '')).toContain(`feature's last recorded head ${RECORDED.slice(0, 8)} (the branch is gone)`);
  });

  it('when merged (the target has the head), then nothing is left to merge and the target\'s own changes are not shown as removed', async () => {
    const merged = mr({ state: 'merged' });
    const { api } = apiAnswering(() => ({ ...comparison(SOURCE, []), merge_base: SOURCE, ahead_by: 0, status: 'behind' }));
    const changes = await mrChangesOf(api, 'o', 'r', merged);
    expect(changes.files).toEqual([]);
    expect(renderToString(<ChangesBase owner="o" name="r" mr={merged} changes={changes} />).replace(/<[^>]+>/g, '')).toBe('No changes left to merge: main already has everything of feature.');
  });

  it('when the source has commits that together change nothing, then the page says so instead of showing an empty diff', async () => {
    const { api } = apiAnswering(() => comparison(SOURCE, []));
    const changes = await mrChangesOf(api, 'o', 'r', mr());
    expect(renderToString(<ChangesBase owner="o" name="r" mr={mr()} changes={changes} />).replace(/<[^>]+>/g, '')).toContain('Together, its commits change no file.');
  });

  it('when there is no merge base (unrelated histories, or the recorded head is no longer in git), then the API\'s own diff shows, said to be tip to tip', async () => {
    const { api } = apiAnswering(() => new AppError('not_found', 'No common ancestor between main and feature'));
    const changes = await mrChangesOf(api, 'o', 'r', mr());
    expect(changes).toEqual({ base: 'tips', files: TIP_DIFF, truncated: false });
    expect(renderToString(<ChangesBase owner="o" name="r" mr={mr()} changes={changes} />).replace(/<[^>]+>/g, '')).toContain('Changes from the tip of main to the tip of feature');
  });

  it('when the target branch is gone, then nothing is asked and the page says which branch is gone', async () => {
    const { api, asked } = apiAnswering(() => new Error('not asked'));
    const noTarget = mr({ target_sha: undefined, diff: [] });
    const changes = await mrChangesOf(api, 'o', 'r', noTarget);
    expect([asked, changes]).toEqual([[], { base: 'tips', files: [], truncated: false }]);
    expect(renderToString(<ChangesBase owner="o" name="r" mr={noTarget} changes={changes} />).replace(/<[^>]+>/g, '')).toBe('No changes to show: the main branch is gone.');
  });

  it('when the API is unavailable, then the page fails as for any other call rather than showing another diff', async () => {
    const { api } = apiAnswering(() => new AppError('unavailable', 'down'));
    await expect(mrChangesOf(api, 'o', 'r', mr())).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
