import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { API, startHarness, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

interface CompareBody {
  base: string;
  head: string;
  base_sha: string;
  head_sha: string;
  merge_base: string;
  status: string;
  ahead_by: number;
  behind_by: number;
  commits: Array<{ sha: string; parents: string[]; message: string }>;
  diff: Array<{ path: string; status: string; additions: number; deletions: number; patch: string | null }>;
  diff_truncated: boolean;
}

const revParse = async (rev: string) => (await h.git('rev-parse', '--verify', '--end-of-options', rev)).trim();
const counts = async (base: string, head: string) => {
  const [behind, ahead] = (await h.git('rev-list', '--left-right', '--count', `${base}...${head}`)).trim().split(/\s+/).map(Number);
  return { ahead_by: ahead, behind_by: behind };
};

async function compare(spec: string): Promise<CompareBody> {
  const res = await h.get(`${API}/compare/${spec}`);
  expect(res.status).toBe(200);
  return res.json() as CompareBody;
}

describe('GET compare', () => {
  it('when head diverged from base, then counts, merge base, commits and diff agree with git', async () => {
    const body = await compare('main...feature/x');
    expect(body).toMatchObject({ base: 'main', head: 'feature/x', status: 'diverged', base_sha: await revParse('refs/heads/main'), head_sha: await revParse('refs/heads/feature/x') });
    expect({ ahead_by: body.ahead_by, behind_by: body.behind_by }).toEqual(await counts('refs/heads/main', 'refs/heads/feature/x'));
    expect(body.merge_base).toBe((await h.git('merge-base', 'refs/heads/main', 'refs/heads/feature/x')).trim());
    expect(body.commits.map((c) => c.sha)).toEqual((await h.git('rev-list', '--reverse', 'refs/heads/feature/x', '^refs/heads/main')).split('\n').filter(Boolean));
    expect(body.diff).toEqual([expect.objectContaining({ path: 'feature.txt', status: 'added', additions: 1, deletions: 0, patch: '@@ -0,0 +1 @@\n+only on feature/x\n' })]);
    expect(body.diff_truncated).toBe(false);
  });

  it('when head is ahead, then status ahead and the commits oldest first, merges included', async () => {
    const body = await compare('main...merged');
    expect(body).toMatchObject({ status: 'ahead', merge_base: await revParse('refs/heads/main'), ...(await counts('refs/heads/main', 'refs/heads/merged')) });
    expect(body.commits.map((c) => c.sha)).toEqual((await h.git('rev-list', '--reverse', 'refs/heads/merged', '^refs/heads/main')).split('\n').filter(Boolean));
    expect(body.diff.map((d) => d.path)).toEqual((await h.git('diff', '--name-only', 'refs/heads/main...refs/heads/merged')).split('\n').filter(Boolean));
  });

  it('when head is behind, then status behind, no commits and an empty diff', async () => {
    const body = await compare('main...release/2024/q1');
    expect(body).toMatchObject({ status: 'behind', ahead_by: 0, behind_by: 30, commits: [], diff: [], merge_base: await revParse('refs/heads/release/2024/q1') });
  });

  it('when both sides name the same commit, then identical', async () => {
    const sha = await revParse('refs/heads/main');
    expect(await compare(`main...${sha}`)).toMatchObject({ status: 'identical', ahead_by: 0, behind_by: 0, commits: [], diff: [] });
  });

  it('when a side is a tag or an encoded slashed name, then it resolves as browse refs do', async () => {
    const body = await compare('v1.0...feature%2Fx');
    expect(body).toMatchObject({ base: 'v1.0', head: 'feature/x', ...(await counts('refs/tags/v1.0^{commit}', 'refs/heads/feature/x')) });
  });

  it('when the ref is unknown, then 404 naming it', async () => {
    const res = await h.get(`${API}/compare/main...nope/x`);
    expect([res.status, res.json()]).toEqual([404, { error: 'Ref not found: nope/x' }]);
  });

  it.each(['main', 'main..feature/x', '...main', 'main...'])('when the spec is %p, then 400', async (spec) => {
    const res = await h.get(`${API}/compare/${spec}`);
    expect([res.status, res.json()]).toEqual([400, { error: 'Compare must be written {base}...{head}' }]);
  });

  it('when asked again with the ETag, then 304; two full ids are immutable, names are not', async () => {
    const first = await h.get(`${API}/compare/main...feature/x`);
    expect(first.headers['cache-control']).toBe('no-cache');
    const again = await h.get(`${API}/compare/main...feature/x`, { headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
    const [a, b] = [await revParse('refs/heads/main'), await revParse('refs/heads/feature/x')];
    expect((await h.get(`${API}/compare/${a}...${b}`)).headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('when the caller cannot read the repository, then 404 Not found', async () => {
    const res = await h.get(`${API}/compare/main...feature/x`, { repo: { private: true, permission: 'none' } });
    expect([res.status, res.json()]).toEqual([404, { error: 'Not found' }]);
  });
});
