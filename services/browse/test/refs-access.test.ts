import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { commitAll, createTestRepository, makeWorkdir, pushTo, writeFiles } from '@githost/git-storage/testing';
import { API, EMPTY_REPO, startHarness, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const empty = { id: EMPTY_REPO, default_branch: 'trunk' };

describe('GET branches', () => {
  it('when listing, then every refs/heads/* with its sha, isDefault and default_branch, as git for-each-ref says', async () => {
    const lines = (await h.git('for-each-ref', '--format=%(refname:lstrip=2) %(objectname)', 'refs/heads/')).split('\n').filter(Boolean);
    const expected = lines.map((l) => {
      const [name, sha] = l.split(' ') as [string, string];
      return { name, sha, isDefault: name === 'main' };
    });
    const res = await h.get(`${API}/branches`);
    expect([res.status, res.json()]).toEqual([200, { branches: expected, default_branch: 'main' }]);
  });

  it('when the repository is empty, then no branches and the default branch name', async () => {
    const res = await h.get(`/api/repos/alice/empty/branches`, { repo: empty });
    expect([res.status, res.json()]).toEqual([200, { branches: [], default_branch: 'trunk' }]);
  });

  it('when the default branch is another one, then isDefault follows it', async () => {
    const body = (await h.get(`${API}/branches`, { repo: { default_branch: 'feature/x' } })).json() as { branches: Array<{ name: string; isDefault: boolean }>; default_branch: string };
    expect([body.branches.filter((b) => b.isDefault).map((b) => b.name), body.default_branch]).toEqual([['feature/x'], 'feature/x']);
  });
});

describe('GET tags', () => {
  it('when listing, then lightweight tags give their commit and annotated ones the peeled commit plus tag_sha', async () => {
    const lines = (await h.git('for-each-ref', '--format=%(refname:lstrip=2) %(objecttype) %(objectname) %(*objectname)', 'refs/tags/')).split('\n').filter(Boolean);
    const expected = lines.map((l) => {
      const [name, type, sha, peeled] = l.split(' ') as [string, string, string, string];
      return type === 'tag' ? { name, sha: peeled, tag_sha: sha } : { name, sha };
    });
    expect(expected.some((t) => 'tag_sha' in t)).toBe(true);
    const res = await h.get(`${API}/tags`);
    expect([res.status, res.json()]).toEqual([200, { tags: expected }]);
  });

  it('when the repository is empty, then no tags', async () => {
    expect((await h.get(`/api/repos/alice/empty/tags`, { repo: empty })).json()).toEqual({ tags: [] });
  });
});

describe('an empty repository (CONTRACT §9)', () => {
  it.each([
    ['tree/', 'Ref not found: trunk'],
    ['blob/trunk/README.md', 'Ref not found: trunk'],
    ['commits/', 'Ref not found: trunk'],
    ['raw/trunk/README.md', 'Ref not found: trunk'],
  ])('when asking %s, then 404 %s', async (endpoint, message) => {
    const res = await h.get(`/api/repos/alice/empty/${endpoint}`, { repo: empty });
    expect([res.status, res.json()]).toEqual([404, { error: message }]);
  });
});

describe('read access (seed §4 browsing rule 1, §5)', () => {
  const endpoints = ['tree/', 'tree/main/src', 'blob/main/README.md', 'raw/main/README.md', 'commits/', `commit/${'a'.repeat(40)}`, 'branches', 'tags', 'blob/', 'tree/nope'];

  it.each(endpoints)('when a caller without read access asks a private repository for %s, then 404 Not found', async (endpoint) => {
    const res = await h.get(`${API}/${endpoint}`, { repo: { private: true, permission: 'none' } });
    expect([res.status, res.json()]).toEqual([404, { error: 'Not found' }]);
  });

  it('when a reader of a private repository asks, then it is answered and kept out of shared caches', async () => {
    const sha = (await h.git('rev-parse', 'refs/heads/main')).trim();
    const res = await h.get(`${API}/tree/${sha}`, { repo: { private: true, permission: 'read' } });
    expect([res.status, res.headers['cache-control']]).toEqual([200, 'private, max-age=31536000, immutable']);
  });

  it('when a reader of a private repository asks by branch, then the answer is private and must be revalidated', async () => {
    const res = await h.get(`${API}/tree/main`, { repo: { private: true, permission: 'read' } });
    expect([res.status, res.headers['cache-control']]).toEqual([200, 'private, no-cache']);
  });

  it('when a writer asks, then read access is implied', async () => {
    expect((await h.get(`${API}/branches`, { repo: { private: true, permission: 'write' } })).status).toBe(200);
  });

  it('when no repository came with the identity, then 404 Not found', async () => {
    const res = await h.get(`${API}/branches`, { repo: null });
    expect([res.status, res.json()]).toEqual([404, { error: 'Not found' }]);
  });

  it('when reached directly without the gateway signature, then 401 and nothing is read', async () => {
    const res = await h.get(`${API}/branches`, { unsigned: true });
    expect(res.status).toBe(401);
  });
});

describe('conditional requests', () => {
  it('when If-None-Match carries the tree ETag, then 304 with the same ETag and no body', async () => {
    const first = await h.get(`${API}/tree/main/src`);
    expect(first.headers.etag).toMatch(/^"[\w-]+"$/);
    const again = await h.get(`${API}/tree/main/src`, { headers: { 'If-None-Match': String(first.headers.etag) } });
    expect([again.status, again.headers.etag, again.body.length]).toEqual([304, first.headers.etag, 0]);
  });

  it.each(['blob/main/README.md', 'commits/main?limit=3', 'branches', 'tags'])('when If-None-Match carries the ETag of %s, then 304', async (endpoint) => {
    const first = await h.get(`${API}/${endpoint}`);
    const again = await h.get(`${API}/${endpoint}`, { headers: { 'If-None-Match': String(first.headers.etag) } });
    expect([first.status, again.status]).toEqual([200, 304]);
  });

  it('when If-None-Match is * on a missing path, then 404 rather than 304', async () => {
    const res = await h.get(`${API}/tree/main/no-such-dir`, { headers: { 'If-None-Match': '*' } });
    expect([res.status, res.json()]).toEqual([404, { error: 'Path not found: no-such-dir' }]);
  });

  it('when the ETag is stale, then the full answer', async () => {
    const res = await h.get(`${API}/tree/main`, { headers: { 'If-None-Match': '"stale"' } });
    expect(res.status).toBe(200);
  });

  it('when two refs name the same commit, then their tree ETags differ (the body echoes the ref)', async () => {
    const sha = (await h.git('rev-parse', 'refs/heads/main')).trim();
    const [a, b] = await Promise.all([h.get(`${API}/tree/main`), h.get(`${API}/tree/${sha}`)]);
    expect(a.headers.etag).not.toBe(b.headers.etag);
  });

  it('when a push moves the branch, then tree, commits and branches answer with new ETags and the new content', async () => {
    const id = 'browse-moving';
    await createTestRepository(h.storage, id, 'main');
    const work = await makeWorkdir();
    await writeFiles(work, { 'a.txt': 'one\n' });
    await commitAll(work, 'one');
    await pushTo(h.storage, id, work, 'HEAD:refs/heads/main');
    const repo = { id, default_branch: 'main' };
    const before = await Promise.all(['tree/main', 'commits/main', 'branches'].map((e) => h.get(`/api/repos/alice/moving/${e}`, { repo })));
    await writeFiles(work, { 'b.txt': 'two\n' });
    const second = await commitAll(work, 'two');
    await pushTo(h.storage, id, work, 'HEAD:refs/heads/main');
    const after = await Promise.all(
      ['tree/main', 'commits/main', 'branches'].map((e, i) => h.get(`/api/repos/alice/moving/${e}`, { repo, headers: { 'If-None-Match': String(before[i]?.headers.etag) } })),
    );
    expect(after.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((after[0]?.json() as { commit: string; entries: Array<{ name: string }> }).entries.map((e) => e.name)).toEqual(['a.txt', 'b.txt']);
    expect((after[1]?.json() as { commits: Array<{ sha: string }> }).commits[0]?.sha).toBe(second);
  });
});

describe('operations', () => {
  it('when trees are read twice, then /metrics counts cache hits and the bytes held', async () => {
    await h.get(`${API}/tree/main/bin`);
    await h.get(`${API}/tree/main/bin`);
    const text = await h.metrics();
    expect(text).toMatch(/githost_browse_cache_lookups_total\{result="hit"[^}]*\} [1-9]/);
    expect(text).toMatch(/githost_browse_cache_bytes\{[^}]*\} [1-9]/);
  });

  it('when a file is read and a missing tree is asked for, then /metrics counts the gRPC calls to git-storage by method and code', async () => {
    expect((await h.get(`${API}/raw/main/empty.txt`)).status).toBe(200);
    expect((await h.get(`${API}/tree/main/no-such-dir`)).status).toBe(404);
    const text = await h.metrics();
    const calls = (method: string, code: string) => new RegExp(`^githost_browse_grpc_client_handled_seconds_count\\{[^}]*method="${method}",code="${code}"[^}]*\\} [1-9]`, 'm');
    expect(text).toMatch(calls('ReadBlob', 'OK'));
    // A whole tree is read by ReadTreeStream, or by ReadTree when its commit is read with it
    // (docs/decisions/big-pages.md#the-whole-tree-streamed): either way counted by its method.
    expect(text).toMatch(calls('ReadTree(?:Stream)?', 'NOT_FOUND'));
    // HTTP by route pattern, the file path never in a label
    expect(text).toMatch(/^githost_browse_http_request_duration_seconds_count\{[^}]*route="\/api\/repos\/:owner\/:repo\/raw",status="200"[^}]*\} [1-9]/m);
    expect(text).toMatch(/^githost_browse_http_request_duration_seconds_count\{[^}]*route="\/api\/repos\/:owner\/:repo\/tree",status="404"[^}]*\} [1-9]/m);
    expect(text).not.toContain('empty.txt');
  });

  it('when git-storage answers, then /readyz is ready', async () => {
    const res = await h.get('/readyz', { unsigned: true });
    expect([res.status, res.json()]).toEqual([200, { status: 'ready' }]);
  });
});
