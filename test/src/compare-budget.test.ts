import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, createRepo, createUser, git, makeWorkdir, pushUrl, startTestGithost, textOf, webGet, type TestGithost } from './support/index.js';

/**
 * A compare past git-storage's budget through the gateway, on the API and the web page: a clear
 * 400, never a 5xx (docs/decisions/compare.md#budget). The budget is set small so that a short
 * history passes it: nothing here depends on how fast anything runs.
 */
const BUDGET = 5;
const TOO_BIG = `Comparison too big: more than ${BUDGET} commits on one side; compare commits closer together, or run git log on a clone`;

let gh: TestGithost;
let work: string;

beforeAll(async () => {
  gh = await startTestGithost({ env: { COMPARE_MAX_WALK_COMMITS: String(BUDGET) } });
  const alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'long');
  work = makeWorkdir();
  await commitFiles(work, { 'n.txt': '0\n' }, 'root');
  await git(work, 'tag', 'v0.1');
  for (let n = 1; n <= BUDGET + 3; n++) await commitFiles(work, { 'n.txt': `${n}\n` }, `commit ${n}`);
  await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'long'), 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*');
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

describe('compare past the budget, through the gateway', () => {
  it('when main has more commits after v0.1 than the budget, then the API answers 400 Comparison too big, either way round', async () => {
    for (const spec of ['v0.1...main', 'main...v0.1']) {
      const res = await api(gh, 'GET', `/api/repos/alice/long/compare/${spec}`);
      expect([res.status, res.body]).toEqual([400, { error: TOO_BIG }]);
    }
  });

  it('when the comparison is within the budget, then it answers 200 with the counts git gives', async () => {
    const near = await git(work, 'rev-parse', `main~${BUDGET}`);
    const res = await api(gh, 'GET', `/api/repos/alice/long/compare/${near}...main`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ahead', ahead_by: BUDGET, behind_by: 0, merge_base: near });
    expect(res.body.commits.map((c: { sha: string }) => c.sha)).toEqual((await git(work, 'rev-list', '--reverse', 'main', `^${near}`)).split('\n'));
  });

  it('when the web compare page is asked for a comparison past the budget, then it answers 400 and says why on the page', async () => {
    const page = await webGet(gh, '/alice/long/-/compare?base=v0.1&head=main');
    expect(page.status).toBe(400);
    expect(textOf(page.html)).toContain(TOO_BIG);
    expect(page.html).toContain('<h1 class="page-title">Compare changes</h1>');
  });
});
