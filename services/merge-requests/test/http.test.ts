import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createHttpApp, finish, listen, type Listening } from '@githost/http';
import { createLogger } from '@githost/logging';
import { mergeRequestRoutes } from '../src/http/routes.js';
import { BASE, FakeUsers, gitWithFeature, MemoryStore, SRC, type FakeGit } from './support/in-memory.js';
import { MemoryReviews } from './support/in-memory-workflow.js';
import { identityHeaders, SECRET, user, type RepoSpec } from './support/identity.js';

// The HTTP edge with in-memory ports: statuses, JSON bodies and the identity rules. The real
// database and git-storage are exercised in service.test.ts.
const bob = user('u-bob', 'bob');
const repo: RepoSpec = { id: 'r1' };
let store: MemoryStore;
let git: FakeGit;
let server: Listening;
let url: string;
/** The shard each request's git access was asked for. */
let gitShards: string[];

beforeEach(async () => {
  store = new MemoryStore();
  git = gitWithFeature();
  gitShards = [];
  const app = createHttpApp({ service: 'merge-requests', logger: createLogger('merge-requests', 'silent'), internalSecret: SECRET });
  const users = new FakeUsers([{ id: 'u-bob', username: 'bob', email: 'bob@example.com' }]);
  app.use(
    mergeRequestRoutes({
      store,
      users,
      requests: new MemoryReviews(),
      relay: { kick: () => undefined },
      gitFor: (_requestId, shard) => {
        gitShards.push(shard);
        return git;
      },
    }),
  );
  finish(app);
  server = await listen(app, 0, '127.0.0.1');
  url = `http://127.0.0.1:${server.port}/api/repos/alice/proj`;
});
afterEach(() => server.close());

async function call(method: string, path: string, opts: { body?: unknown; raw?: string; principal?: typeof bob | null; repo?: RepoSpec; headers?: Record<string, string> } = {}) {
  const headers = opts.headers ?? identityHeaders(opts.principal === undefined ? bob : opts.principal, opts.repo ?? repo);
  const res = await fetch(`${url}${path}`, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & Array<Record<string, unknown>> };
}
const create = (body: unknown = { title: 'Feature', source_branch: 'feature', target_branch: 'main' }) => call('POST', '/merge-requests', { body });

describe('merge requests over HTTP', () => {
  it('when created, then 201 with the complete record', async () => {
    const res = await create({ title: 'Feature', source_branch: 'feature', target_branch: 'main' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ number: 1, title: 'Feature', description: null, state: 'open', source_sha: SRC, author_id: 'u-bob', repo_id: 'r1' });
  });

  it('when the repository lives on another git-storage shard, then git access is asked on that shard', async () => {
    const onShard = { id: 'r1', shard: 'shard-7' };
    expect((await call('POST', '/merge-requests', { repo: onShard, body: { title: 'Feature', source_branch: 'feature', target_branch: 'main' } })).status).toBe(201);
    expect((await call('POST', '/merge-requests/1/merge', { repo: onShard })).status).toBe(200);
    expect(new Set(gitShards)).toEqual(new Set(['shard-7']));
  });

  it('when the required fields are missing, then 400 with the seed message', async () => {
    expect(await create({ title: ' ' })).toEqual({ status: 400, body: { error: 'title, source_branch, and target_branch are required' } });
  });

  it('when a branch is missing, then 404 `Branch not found: <branch>`', async () => {
    expect(await create({ title: 'x', source_branch: 'nope', target_branch: 'main' })).toEqual({ status: 404, body: { error: 'Branch not found: nope' } });
  });

  it('when the body is malformed JSON, then 400 `Invalid JSON body`', async () => {
    expect(await call('POST', '/merge-requests', { raw: '{"title":' })).toEqual({ status: 400, body: { error: 'Invalid JSON body' } });
  });

  it('when there is no signed identity, then 401 and nothing is created', async () => {
    const res = await call('POST', '/merge-requests', { body: { title: 'x', source_branch: 'feature', target_branch: 'main' }, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    expect(store.mrs).toEqual([]);
  });

  it('when anonymous, then create, comment and merge answer 401 `Authentication required`', async () => {
    await create();
    for (const [method, path] of [['POST', '/merge-requests'], ['POST', '/merge-requests/1/comments'], ['POST', '/merge-requests/1/merge']] as const) {
      expect(await call(method, path, { principal: null, body: { body: 'x' } })).toEqual({ status: 401, body: { error: 'Authentication required' } });
    }
  });

  it('when listing without a state, then open ones with author_username; list and detail work anonymously on a public repository', async () => {
    await create();
    const list = await call('GET', '/merge-requests', { principal: null, repo: { id: 'r1', permission: 'read' } });
    expect(list.status).toBe(200);
    expect(list.body.map((m) => [m.number, m.author_username])).toEqual([[1, 'bob']]);
    expect((await call('GET', '/merge-requests?state=merged')).body).toEqual([]);
    const detail = await call('GET', '/merge-requests/1', { principal: null, repo: { id: 'r1', permission: 'read' } });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ number: 1, source_sha: SRC, target_sha: BASE, diff: [], comments: [], mergeable: true, diff_truncated: false });
  });

  it('when the number is not an integer, then 404 JSON `Merge request #abc not found`', async () => {
    expect(await call('GET', '/merge-requests/abc')).toEqual({ status: 404, body: { error: 'Merge request #abc not found' } });
    expect(await call('POST', '/merge-requests/abc/comments', { body: { body: 'x' } })).toEqual({ status: 404, body: { error: 'Merge request #abc not found' } });
    expect(await call('POST', '/merge-requests/abc/merge')).toEqual({ status: 404, body: { error: 'Merge request #abc not found' } });
  });

  it('when commenting, then 201 with the complete record; bad fields give 400 with the CONTRACT messages', async () => {
    await create();
    const ok = await call('POST', '/merge-requests/1/comments', { body: { body: 'nice', file_path: 'a.txt', line_number: 2, diff_side: 'old' } });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ body: 'nice', file_path: 'a.txt', line_number: 2, diff_side: 'old', author_id: 'u-bob' });
    expect(await call('POST', '/merge-requests/1/comments', { body: { body: '' } })).toEqual({ status: 400, body: { error: 'Comment body is required' } });
    expect(await call('POST', '/merge-requests/1/comments', { body: { body: 'x', line_number: -1 } })).toEqual({ status: 400, body: { error: 'line_number must be a positive integer' } });
    expect(await call('POST', '/merge-requests/1/comments', { body: { body: 'x', diff_side: 'left' } })).toEqual({ status: 400, body: { error: 'diff_side must be "old" or "new"' } });
  });

  it('when merging without write access, then 400 `You do not have write access to this repository`', async () => {
    await create();
    expect(await call('POST', '/merge-requests/1/merge', { repo: { id: 'r1', permission: 'read' } })).toEqual({ status: 400, body: { error: 'You do not have write access to this repository' } });
  });

  it('when merging, then 200 {merged, sha, strategy}; again, then 409 `Merge request is not open`', async () => {
    await create();
    expect(await call('POST', '/merge-requests/1/merge')).toEqual({ status: 200, body: { merged: true, sha: SRC, strategy: 'fast-forward' } });
    expect(await call('POST', '/merge-requests/1/merge')).toEqual({ status: 409, body: { error: 'Merge request is not open' } });
  });

  it('when the merge conflicts, then 409 with the conflicting paths', async () => {
    await create();
    git.commit('t'.repeat(40), BASE);
    git.branches.set('main', 't'.repeat(40));
    git.conflicts = ['README.md'];
    expect(await call('POST', '/merge-requests/1/merge')).toEqual({ status: 409, body: { error: 'Merge conflict', conflicts: ['README.md'] } });
  });

  it('when a page of the list is asked with its merge facts, then the records carry them, with the list\'s count and its Link on the same path (services/merge-requests/README.md#merge-facts)', async () => {
    await create();
    await create({ title: 'Again', source_branch: 'feature', target_branch: 'main' });
    const res = await fetch(`${url}/merge-requests/with-merge-facts?state=open&per_page=1`, { headers: identityHeaders(null, { id: 'r1', permission: 'read' }) });
    expect([res.status, res.headers.get('x-total-count')]).toEqual([200, '2']);
    expect(res.headers.get('link')).toContain('/api/repos/alice/proj/merge-requests/with-merge-facts?state=open&per_page=1&cursor=');
    const rows = (await res.json()) as Array<Record<string, unknown>>;
    expect(rows.map((m) => [m.number, m.author_username, m.mergeable, m.merged_by_username, m.requested_reviewers])).toEqual([[2, 'bob', true, null, []]]);
  });

  it('when the repository is private and the caller cannot read it, then every endpoint answers 404 `Repository not found`', async () => {
    await create();
    const hidden = { id: 'r1', private: true, permission: 'none' as const };
    for (const [method, path] of [['GET', '/merge-requests'], ['GET', '/merge-requests/with-merge-facts'], ['GET', '/merge-requests/1'], ['POST', '/merge-requests'], ['POST', '/merge-requests/1/comments'], ['POST', '/merge-requests/1/merge'], ['GET', '/activity']] as const) {
      expect(await call(method, path, { repo: hidden, body: method === 'POST' ? { body: 'x' } : undefined })).toEqual({ status: 404, body: { error: 'Repository not found' } });
    }
  });

  it('when reading activity, then newest first with id, action, user_id, data, created_at', async () => {
    await create();
    await call('POST', '/merge-requests/1/merge');
    const res = await call('GET', '/activity');
    expect(res.status).toBe(200);
    expect(res.body.map((a) => a.action)).toEqual(['merge_mr', 'create_mr']);
    expect(Object.keys(res.body[0]!).sort()).toEqual(['action', 'created_at', 'data', 'id', 'user_id']);
  });
});
