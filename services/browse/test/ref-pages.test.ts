import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { seedRepository, startHarness, type Harness } from './support/harness.js';
import { git } from './support/git.js';

// docs/decisions/ref-pages.md: opt-in pages of branches and tags, the seed's answer unchanged.
const REPO = 'browse-many-refs';
const API = '/api/repos/alice/many';
const many = { id: REPO, name: 'many', default_branch: 'main' };
const BRANCHES = 250;
const TAGS = 40;

let h: Harness;
let source: string;
let branchNames: string[];
let tagNames: string[];

/** One commit, BRANCHES branches and TAGS tags at it, written by git fast-import. */
function manyRefs(): Buffer {
  const lines = ['commit refs/heads/main', 'mark :1', 'committer A <a@example.com> 1700000000 +0000', 'data 2', 'c', 'M 644 inline f', 'data 2', 'x', ''];
  for (let i = 0; i < BRANCHES - 1; i++) lines.push(`reset refs/heads/${i % 2 === 0 ? 'feature' : 'Fix'}/${String(i).padStart(3, '0')}`, 'from :1', '');
  for (let i = 0; i < TAGS; i++) lines.push(`reset refs/tags/v1.${i}`, 'from :1', '');
  lines.push('done');
  return Buffer.from(lines.join('\n') + '\n');
}

beforeAll(async () => {
  h = await startHarness();
  source = await seedRepository(h, REPO, manyRefs(), ['refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*']);
  const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  branchNames = (await git(source, 'for-each-ref', '--format=%(refname:lstrip=2)', 'refs/heads/')).split('\n').filter(Boolean).sort(byBytes);
  tagNames = (await git(source, 'for-each-ref', '--format=%(refname:lstrip=2)', 'refs/tags/')).split('\n').filter(Boolean).sort(byBytes);
}, 60_000);
afterAll(async () => {
  await h.stop();
  await rm(source, { recursive: true, force: true });
});

type Branches = { branches: Array<{ name: string; sha: string; isDefault: boolean }>; default_branch: string };
const get = (query: string, headers: Record<string, string> = {}) => h.get(`${API}/branches${query}`, { repo: many, headers });

describe('GET branches, paged', () => {
  it('when no paging parameter is given, then every branch and no paging headers, as before', async () => {
    const res = await get('');
    const body = res.json() as Branches;
    expect([res.status, body.branches.map((b) => b.name), body.default_branch, res.headers.link, res.headers['x-total-count']]).toEqual([200, branchNames, 'main', undefined, undefined]);
  });

  it('when per_page and page are given, then that slice in name order, the count and GitHub links', async () => {
    const res = await get('?per_page=100&page=2');
    const body = res.json() as Branches;
    expect([res.status, body.branches.map((b) => b.name), body.default_branch, res.headers['x-total-count']]).toEqual([200, branchNames.slice(100, 200), 'main', String(BRANCHES)]);
    expect(res.headers.link).toBe(
      `<${API}/branches?per_page=100&page=1>; rel="prev", <${API}/branches?per_page=100&page=3>; rel="next", <${API}/branches?per_page=100&page=3>; rel="last", <${API}/branches?per_page=100&page=1>; rel="first"`,
    );
  });

  it('when every page is read by its next link, then together they are the whole list once', async () => {
    const seen: string[] = [];
    let next: string | undefined = `${API}/branches?per_page=70`;
    while (next) {
      const res = await h.get(next, { repo: many });
      seen.push(...(res.json() as Branches).branches.map((b) => b.name));
      next = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1];
    }
    expect(seen).toEqual(branchNames);
  });

  it('when q is given, then only the names holding it in any letter case are listed and counted, isDefault kept', async () => {
    const fix = await get('?q=fix/1');
    expect([(fix.json() as Branches).branches.map((b) => b.name), fix.headers['x-total-count']]).toEqual([branchNames.filter((n) => n.toLowerCase().includes('fix/1')).slice(0, 30), String(branchNames.filter((n) => n.toLowerCase().includes('fix/1')).length)]);
    const main = await get('?q=MAI');
    expect([(main.json() as Branches).branches, main.headers.link]).toEqual([[{ name: 'main', sha: expect.stringMatching(/^[0-9a-f]{40}$/) as unknown as string, isDefault: true }], undefined]);
    const none = await get('?q=nothing-like-it');
    expect([none.status, (none.json() as Branches).branches, none.headers['x-total-count']]).toEqual([200, [], '0']);
  });

  it('when the page is past the last, then an empty list with the count and a link back', async () => {
    const res = await get('?per_page=100&page=9');
    expect([res.status, (res.json() as Branches).branches, res.headers['x-total-count'], String(res.headers.link)]).toEqual([200, [], String(BRANCHES), `<${API}/branches?per_page=100&page=3>; rel="prev", <${API}/branches?per_page=100&page=1>; rel="first"`]);
  });

  it('when a paging value is malformed, then 400 naming it', async () => {
    for (const [query, message] of [
      ['?per_page=0', 'per_page must be an integer from 1 to 100'],
      ['?per_page=101', 'per_page must be an integer from 1 to 100'],
      ['?per_page=ten', 'per_page must be an integer from 1 to 100'],
      ['?page=0', 'page must be an integer from 1 to 1000000'],
      ['?page=1&page=2', 'page must be given once'],
      [`?q=${'x'.repeat(101)}`, 'q must be at most 100 characters'],
    ] as const) {
      const res = await get(query);
      expect([query, res.status, res.json()]).toEqual([query, 400, { error: message }]);
    }
  });

  it('when the paged answer is asked again with its ETag, then 304', async () => {
    const first = await get('?per_page=10&q=feature');
    const again = await get('?per_page=10&q=feature', { 'if-none-match': String(first.headers.etag) });
    expect([first.status, again.status]).toEqual([200, 304]);
  });
});

describe('GET tags, paged', () => {
  it('when per_page is given, then the first page of the tags in name order and their count', async () => {
    const res = await h.get(`${API}/tags?per_page=15`, { repo: many });
    expect([res.status, (res.json() as { tags: Array<{ name: string }> }).tags.map((t) => t.name), res.headers['x-total-count']]).toEqual([200, tagNames.slice(0, 15), String(TAGS)]);
    expect(String(res.headers.link)).toBe(`<${API}/tags?per_page=15&page=2>; rel="next", <${API}/tags?per_page=15&page=3>; rel="last"`);
  });

  it('when no paging parameter is given, then every tag, as before', async () => {
    const res = await h.get(`${API}/tags`, { repo: many });
    expect([(res.json() as { tags: Array<{ name: string }> }).tags.map((t) => t.name), res.headers['x-total-count']]).toEqual([tagNames, undefined]);
  });
});
