import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import express from 'express';
import type { GatewayApi } from '../src/clients/api.js';
import { KeptPages } from '../src/pages/page-cache.js';
import { repositoryJson, startWebBefore } from './support/web.js';

/**
 * A kept tree page (pages/page-cache.ts) against a stand-in API that answers the listing with an
 * ETag and 304 to a matching If-None-Match, after checking the credential and access as the
 * gateway does. A 304 carries no listing, so a page that shows one after a 304 is the kept page.
 */
const SESSIONS: Record<string, string> = { ghsess_alice: 'alice', ghsess_bob: 'bob' };
const ALICE = { cookie: 'githost_session=ghsess_alice' };
let running: Awaited<ReturnType<typeof startWebBefore>> | undefined;
let base: string;
let listing: { etag: string; names: string[] };
/** Who may read alice/code (the owner alone when it is private). */
let readers: Set<string | undefined>;
let revoked: Set<string>;
const treeCalls: { credential: string | undefined; ifNoneMatch: string | undefined; status: number }[] = [];
let comparison: { etag: string; subjects: string[] };
const compareCalls: typeof treeCalls = [];
/** The merge request !n: its two heads, and the commits its commits call lists (a push between
 *  the detail and that call is a list not ending at the detail's source head). */
let mergeRequest: { source: string; target: string; listed: string[] };
const mrCalls: string[] = [];

/** The author and committer of every commit the stand-in API names. */
const WHO = { name: 'Alice', email: 'alice@example.com', date: '2026-01-01T00:00:00Z' };

const credentialOf = (req: express.Request) => /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];

beforeAll(async () => {
  const app = express();
  // As the gateway: a revoked session is refused on every call, before anything else.
  app.use((req, res, next) => {
    const credential = credentialOf(req);
    if (credential !== undefined && (revoked.has(credential) || !SESSIONS[credential])) return void res.status(401).json({ error: 'Authentication required' });
    next();
  });
  app.get('/api/user', (req, res) => {
    const username = SESSIONS[credentialOf(req) ?? ''];
    if (!username) return void res.status(401).json({ error: 'Authentication required' });
    res.json({ id: `u-${username}`, username, email: null, is_admin: false });
  });
  const readable = (req: express.Request) => readers.has(SESSIONS[credentialOf(req) ?? '']);
  app.get('/api/repos/alice/code', (req, res) => {
    if (!readable(req)) return void res.status(404).json({ error: 'Repository not found' });
    res.json(repositoryJson('alice', 'code', !readers.has(undefined)));
  });
  /** As the gateway answers a conditional GET: 404 to a stranger, 304 to a matching
   *  If-None-Match, each call recorded in `calls`; true when the caller is to send the 200. */
  const conditional = (req: express.Request, res: express.Response, etag: string, calls: typeof treeCalls): boolean => {
    const ifNoneMatch = req.headers['if-none-match'];
    const status = !readable(req) ? 404 : ifNoneMatch === etag ? 304 : 200;
    calls.push({ credential: credentialOf(req), ifNoneMatch, status });
    if (status === 404) res.status(404).json({ error: 'Repository not found' });
    else res.setHeader('ETag', etag);
    if (status === 304) res.status(304).end();
    return status === 200;
  };
  app.get('/api/repos/alice/code/tree/', (req, res) => {
    if (!conditional(req, res, listing.etag, treeCalls)) return;
    const entries = listing.names.map((name) => ({ name, path: name, type: 'blob', mode: '100644', sha: 'a'.repeat(40), size: 10 }));
    res.json({ ref: 'main', path: '', commit: 'c'.repeat(40), entries });
  });
  // The rest of what the repository's page shows (tab counts, latest commit): the same on every view.
  app.get('/api/repos/alice/code/branches', (req, res) => {
    if (!readable(req)) return void res.status(404).json({ error: 'Not found' });
    res.json({ branches: [{ name: 'main', sha: 'c'.repeat(40), isDefault: true }], default_branch: 'main' });
  });
  // Compare main...feature: the ETag names the two commits, as browse's does.
  app.get('/api/repos/alice/code/compare/:basehead', (req, res) => {
    if (!conditional(req, res, comparison.etag, compareCalls)) return;
    const commits = comparison.subjects.map((subject, i) => ({ sha: String(i + 1).repeat(40), tree: 'd'.repeat(40), parents: [], author: WHO, committer: WHO, message: `${subject}\n` }));
    const diff = [{ path: 'notes.txt', old_path: null, status: 'modified', additions: 1, deletions: 0, binary: false, patch: '@@ -1 +1,2 @@\n one\n+two\n' }];
    res.json({ base: 'main', head: 'feature', base_sha: 'c'.repeat(40), head_sha: '1'.repeat(40), merge_base: 'c'.repeat(40), status: 'ahead', ahead_by: commits.length, behind_by: 0, total_commits: commits.length, commits, diff, diff_truncated: false });
  });
  app.get('/api/repos/alice/code/merge-requests/:number', (req, res) => {
    mrCalls.push('detail');
    if (!readable(req)) return void res.status(404).json({ error: 'Merge request not found' });
    const at = { id: 'mr-1', repo_id: 'r-1', number: Number(req.params.number), title: 'Add two', description: null, author_id: 'u-alice', author_username: 'alice', source_branch: 'feature', target_branch: 'main' };
    res.json({ ...at, source_sha: mergeRequest.source, head_sha: mergeRequest.source, target_sha: mergeRequest.target, state: 'open', merged_sha: null, merged_by: null, created_at: WHO.date, updated_at: WHO.date, diff: [], diff_truncated: false, mergeable: true, comments: [], review_summary: { approvals: 0, changes_requested: 0 }, status: { state: 'pending', sha: mergeRequest.source, total_count: 0, statuses: [] } });
  });
  app.get('/api/repos/alice/code/merge-requests/:number/commits', (req, res) => {
    mrCalls.push('commits');
    if (!readable(req)) return void res.status(404).json({ error: 'Merge request not found' });
    res.json(mergeRequest.listed.map((sha) => ({ sha, tree: 'd'.repeat(40), parents: [], author: WHO, committer: WHO, message: `Commit ${sha.slice(0, 7)}\n` })));
  });
  app.get('/api/repos/alice/code/merge-requests/:number/reviews', (req, res) => (readable(req) ? void res.json([]) : void res.status(404).json({ error: 'Merge request not found' })));
  app.get('/api/repos/alice/code/tags', (req, res) => (readable(req) ? void res.json({ tags: [] }) : void res.status(404).json({ error: 'Not found' })));
  app.get('/api/repos/alice/code/merge-requests', (req, res) => (readable(req) ? void res.json([]) : void res.status(404).json({ error: 'Repository not found' })));
  app.get('/api/repos/alice/code/commits/:sha', (req, res) => {
    if (!readable(req)) return void res.status(404).json({ error: 'Not found' });
    res.json({ ref: 'main', commits: [{ sha: 'c'.repeat(40), tree: 'd'.repeat(40), parents: [], author: WHO, committer: WHO, message: 'Latest\n' }] });
  });
  running = await startWebBefore(app);
  base = running.base;
});

afterAll(() => running?.close());

let repoNumber = 0;
beforeEach(() => {
  // Each case its own listing ETag, so no case sees a page another kept.
  repoNumber += 1;
  listing = { etag: `"tree-${repoNumber}-a"`, names: ['first.txt', 'second.txt'] };
  readers = new Set(['alice']);
  revoked = new Set();
  treeCalls.length = 0;
  comparison = { etag: `"compare-${repoNumber}-a"`, subjects: ['Add two'] };
  compareCalls.length = 0;
  mergeRequest = { source: '1'.repeat(40), target: 'c'.repeat(40), listed: ['1'.repeat(40)] };
  mrCalls.length = 0;
});

const view = async (headers: Record<string, string> = ALICE) => {
  const res = await fetch(`${base}/alice/code?case=${repoNumber}`, { headers });
  return { status: res.status, html: await res.text(), cookies: res.headers.getSetCookie() };
};

describe('a kept page', () => {
  it('when the listing is answered 304, then the page kept from the first view is sent again', async () => {
    const first = await view();
    const second = await view();
    expect(first.status).toBe(200);
    expect(first.html).toContain('second.txt');
    expect(first.html).toContain('href="/-/settings">alice</a>');
    expect(second).toEqual(first);
    expect(treeCalls).toEqual([
      { credential: 'ghsess_alice', ifNoneMatch: undefined, status: 200 },
      { credential: 'ghsess_alice', ifNoneMatch: listing.etag, status: 304 },
    ]);
  });

  it('when the listing changed, then the 200 builds the page anew, and that page is kept in turn', async () => {
    await view();
    listing = { etag: `"tree-${repoNumber}-b"`, names: ['first.txt', 'third.txt'] };
    const changed = await view();
    const again = await view();
    expect(changed.status).toBe(200);
    expect(changed.html).toContain('third.txt');
    expect(changed.html).not.toContain('second.txt');
    expect(again.html).toBe(changed.html);
    expect(treeCalls.map((c) => `${c.ifNoneMatch ?? '-'} ${c.status}`)).toEqual([`- 200`, `"tree-${repoNumber}-a" 200`, `"tree-${repoNumber}-b" 304`]);
  });

  it('when the repository is no longer the person’s to read, then the API’s 404 is the page, not the kept one', async () => {
    await view();
    readers = new Set();
    const refused = await view();
    expect(refused.status).toBe(404);
    expect(refused.html).not.toContain('first.txt');
    // The check's answer is the one the page is built from: the listing is not asked for twice.
    expect(treeCalls).toEqual([
      { credential: 'ghsess_alice', ifNoneMatch: undefined, status: 200 },
      { credential: 'ghsess_alice', ifNoneMatch: listing.etag, status: 404 },
    ]);
  });

  it('when the session was revoked, then the 401 is not answered with the kept page: the session is forgotten and the page is anonymous', async () => {
    await view();
    revoked.add('ghsess_alice');
    const refused = await view();
    expect(refused.status).toBe(404);
    expect(refused.html).not.toContain('first.txt');
    expect(refused.html).toContain('href="/-/sign-in"');
    expect(refused.cookies).toContain('githost_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
    // The revoked session's calls are refused before they reach the listing.
    expect(treeCalls.map((c) => `${c.credential ?? '-'} ${c.ifNoneMatch ?? '-'} ${c.status}`)).toEqual(['ghsess_alice - 200', '- - 404']);
  });

  it('when another person views the same address, then the page is built for them, not sent from the first person’s', async () => {
    readers = new Set(['alice', 'bob']);
    await view();
    const bobs = await view({ cookie: 'githost_session=ghsess_bob' });
    expect(bobs.html).toContain('href="/-/settings">bob</a>');
    expect(bobs.html).not.toContain('>alice</a></');
    expect(treeCalls.map((c) => `${c.credential ?? '-'} ${c.ifNoneMatch ?? '-'}`)).toEqual(['ghsess_alice -', 'ghsess_bob -']);
  });

  it('when anonymous, then a public repository’s page is kept and sent again on a 304', async () => {
    readers = new Set([undefined, 'alice']);
    const first = await view({});
    const second = await view({});
    expect(second.status).toBe(200);
    expect(second.html).toBe(first.html);
    expect(second.html).toContain('first.txt');
    expect(treeCalls.map((c) => `${c.credential ?? '-'} ${c.status}`)).toEqual(['- 200', '- 304']);
  });
});

describe('a kept compare page', () => {
  const compare = async () => {
    const res = await fetch(`${base}/alice/code/-/compare?base=main&head=feature&case=${repoNumber}`, { headers: ALICE });
    return { status: res.status, html: await res.text() };
  };

  it('when the compare is answered 304, then the page kept from the first view is sent again; when the head moved, then the page is built anew', async () => {
    const first = await compare();
    const second = await compare();
    comparison = { etag: `"compare-${repoNumber}-b"`, subjects: ['Add two', 'Add three'] };
    const moved = await compare();
    expect(first.status).toBe(200);
    expect(first.html).toContain('Add two');
    expect(first.html).toContain('Added line: </span>two');
    expect(second).toEqual(first);
    expect(moved.status).toBe(200);
    expect(moved.html).toContain('Add three');
    expect(compareCalls.map((c) => `${c.ifNoneMatch ?? '-'} ${c.status}`)).toEqual([`- 200`, `"compare-${repoNumber}-a" 304`, `"compare-${repoNumber}-a" 200`]);
  });
});

describe('a kept merge request page', () => {
  // Each case its own merge request: the web keeps a merge request's commits by its number.
  const mrPage = async () => {
    const res = await fetch(`${base}/alice/code/-/merge-requests/${repoNumber}`, { headers: ALICE });
    return { status: res.status, html: await res.text() };
  };

  it('when the detail and its compare are answered as before, then the kept page is sent without asking for the commits again; a push builds it anew', async () => {
    const first = await mrPage();
    const second = await mrPage();
    expect(mrCalls).toEqual(['detail', 'commits', 'detail']);
    mergeRequest = { source: '2'.repeat(40), target: 'c'.repeat(40), listed: ['1'.repeat(40), '2'.repeat(40)] };
    comparison = { etag: `"compare-${repoNumber}-b"`, subjects: ['Add two', 'Add three'] };
    const pushed = await mrPage();
    expect(first.status).toBe(200);
    expect(first.html).toContain('Commit 1111111');
    expect(second).toEqual(first);
    expect(pushed.html).toContain('Commit 2222222');
    // The kept view's check: the compare by the detail's two heads, a 304 while they stand; after
    // the push, the check's compare by the old heads, then the build's by the new ones.
    expect(compareCalls.map((c) => `${c.ifNoneMatch ?? '-'} ${c.status}`)).toEqual([`- 200`, `"compare-${repoNumber}-a" 304`, `"compare-${repoNumber}-a" 200`, '- 200']);
  });

  it('when the commits listed do not end at the head the detail names (a push between the two calls), then the page is not kept', async () => {
    mergeRequest = { ...mergeRequest, listed: ['2'.repeat(40)] };
    await mrPage();
    mergeRequest = { ...mergeRequest, listed: ['1'.repeat(40)] };
    const again = await mrPage();
    expect(again.html).toContain('Commit 1111111');
    expect(again.html).not.toContain('Commit 2222222');
    expect(compareCalls.map((c) => `${c.ifNoneMatch ?? '-'} ${c.status}`)).toEqual(['- 200', '- 200']);
  });
});

describe('KeptPages', () => {
  const answering = (status: number, text = '') => ({ revalidate: () => Promise.resolve({ status, text }) }) as unknown as GatewayApi;

  it('when a kept page is sent again, then it carries this view’s anti-CSRF token, not the one it was built with', async () => {
    const pages = new KeptPages();
    pages.keep('k', '<form><input name="csrf" value="token-one"></form><p>token-one</p>', 'token-one', [{ path: '/api/x', status: 200, text: '{"a":1}', etag: '"x"' }]);
    await expect(pages.revalidate('k', answering(304), 'token-two')).resolves.toEqual({ html: '<form><input name="csrf" value="token-two"></form><p>token-two</p>' });
  });

  it('when an answer without an ETag is the same, then the page is kept; when it differs, the new answer is handed back to build from', async () => {
    const pages = new KeptPages();
    pages.keep('k', '<p>page</p>', 't', [{ path: '/api/user', status: 200, text: '{"username":"alice"}' }]);
    await expect(pages.revalidate('k', answering(200, '{"username":"alice"}'), 't')).resolves.toEqual({ html: '<p>page</p>' });
    await expect(pages.revalidate('k', answering(200, '{"username":"alicia"}'), 't')).resolves.toEqual({ answers: new Map([['/api/user', { status: 200, text: '{"username":"alicia"}' }]]) });
  });

  it('when the pages exceed the bytes allowed, then the least recently used is dropped', () => {
    const pages = new KeptPages(10_000);
    pages.keep('one', 'x'.repeat(4_000), 't', [{ path: '/a', status: 200, text: '' }]);
    pages.keep('two', 'x'.repeat(4_000), 't', [{ path: '/a', status: 200, text: '' }]);
    pages.keep('three', 'x'.repeat(4_000), 't', [{ path: '/a', status: 200, text: '' }]);
    expect(pages.size).toBe(2);
  });
});
