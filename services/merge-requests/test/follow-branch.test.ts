import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@githost/test-support';
import { randomUUID } from 'node:crypto';
import { createEventBus, type EventBus, type EventEnvelope } from '@githost/bus';
import { openDatabase } from '@githost/db';
import { PgMergeRequestStore } from '../src/db/merge-request-store.js';
import { mergeRequestEvent } from '../src/domain/merge-request-event.js';
import { removeBrokerTopology, TEST_AMQP_URL, uniqueTestName } from '@githost/bus/testing';
import { createLogger } from '@githost/logging';
import { commitAll, createTestRepository, git, makeWorkdir, pushTo, writeFiles } from '@githost/git-storage/testing';
import { identityHeaders, user } from './support/identity.js';
import { startStack, type Stack } from './support/stack.js';

// Lifecycle and following pushes on the real service: Postgres, git-storage over gRPC with
// repositories built by git, the bus. Pushes go to the bare repository over file:// and their
// `push` events are published as git-storage publishes them (CONTRACT §7 payload).
const bob = user('u-bob', 'bob');
const carol = user('u-carol', 'carol');
const ZERO = '0'.repeat(40);
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

interface Repo {
  id: string;
  wd: string;
  bare: string;
}

async function makeRepo(on: Stack = stack): Promise<Repo> {
  const id = randomUUID();
  await createTestRepository(on.storage, id);
  const wd = await makeWorkdir();
  await writeFiles(wd, { 'README.md': 'hello\n', 'a.txt': 'one\n' });
  await commitAll(wd, 'initial', { date: '2024-01-01T00:00:00Z' });
  await git(wd, 'checkout', '-q', '-b', 'feature');
  await writeFiles(wd, { 'b.txt': 'feature\n' });
  await commitAll(wd, 'feature one', { date: '2024-01-02T00:00:00Z' });
  await git(wd, 'checkout', '-q', 'main');
  await pushTo(on.storage, id, wd, 'main', 'feature');
  return { id, wd, bare: on.storage.repoPath(id) };
}

const tip = async (r: Repo, branch: string) => (await git(r.bare, 'rev-parse', `refs/heads/${branch}`)).trim();
const tip2 = async (dir: string, rev: string) => (await git(dir, 'rev-parse', rev)).trim();

async function call(r: Repo, method: string, path: string, body?: unknown, opts: { permission?: 'read' | 'write'; as?: typeof bob; baseUrl?: string } = {}) {
  const res = await fetch(`${opts.baseUrl ?? stack.baseUrl}/api/repos/alice/proj${path}`, {
    method,
    headers: identityHeaders(opts.as ?? bob, { id: r.id, permission: opts.permission ?? 'write' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & Array<Record<string, unknown>> };
}
const open = (r: Repo, opts: { baseUrl?: string } = {}) => call(r, 'POST', '/merge-requests', { title: 'Feature', source_branch: 'feature', target_branch: 'main' }, opts);

/** The `push` envelope git-storage journals for one ref update. */
function pushEvent(r: Repo, ref: string, before: string, after: string, pusher = 'carol', commits = 1): EventEnvelope {
  return {
    id: randomUUID(),
    kind: 'push',
    occurred_at: new Date().toISOString(),
    repository: { id: r.id, owner: 'alice', name: 'proj' },
    payload: {
      event: 'push', ref, before, after, created: before === ZERO, deleted: after === ZERO,
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' },
      sender: { username: pusher },
      commits: Array.from({ length: after === ZERO ? 0 : commits }, () => ({ id: after, message: 'm', author: { name: 'a', email: 'a@x' }, timestamp: '2024-01-01T00:00:00+00:00' })),
    },
  };
}

/** Commits on `branch` in the work tree and pushes it; returns [before, after]. */
async function pushCommit(r: Repo, branch: string, file: string, opts: { force?: boolean } = {}): Promise<[string, string]> {
  const before = await tip(r, branch);
  await git(r.wd, 'checkout', '-q', branch);
  await writeFiles(r.wd, { [file]: `${file} ${randomUUID()}\n` });
  await commitAll(r.wd, `change ${file}`);
  if (opts.force) {
    // the bare repository refuses non-fast-forward pushes; move the ref as git-storage would
    await git(r.wd, 'push', '-q', r.bare, `${branch}:refs/rewritten/${branch}`);
    await git(r.bare, 'update-ref', `refs/heads/${branch}`, await tip2(r.wd, 'HEAD'), before);
  } else await pushTo(stack.storage, r.id, r.wd, branch);
  stack.storage.service.context.refs.invalidate(r.bare);
  return [before, await tip(r, branch)];
}

const eventsOf = (r: Repo) => stack.events.filter((e) => e.repository.id === r.id).map((e) => (e.payload as { action: string }).action);

describe('merge request lifecycle on Postgres', () => {
  it('when closed, listed, edited and reopened, then each is stored, listed by state, recorded and emitted once', async () => {
    const r = await makeRepo();
    expect((await open(r)).body).toMatchObject({ number: 1, head_sha: await tip(r, 'feature') });
    expect(await call(r, 'PATCH', '/merge-requests/1', { state: 'closed' }, { as: carol, permission: 'read' })).toEqual({ status: 400, body: { error: 'Only the author or users with write access can change this merge request' } });
    expect(await call(r, 'PATCH', '/merge-requests/1', { state: 'shut' })).toEqual({ status: 400, body: { error: 'state must be "open" or "closed"' } });
    expect(await call(r, 'PATCH', '/merge-requests/1', {})).toEqual({ status: 400, body: { error: 'Nothing to change: give title, description or state' } });

    const closed = await call(r, 'PATCH', '/merge-requests/1', { state: 'closed', title: 'Parked' });
    expect(closed).toMatchObject({ status: 200, body: { number: 1, state: 'closed', title: 'Parked' } });
    expect((await call(r, 'GET', '/merge-requests?state=closed')).body.map((m) => m.number)).toEqual([1]);
    expect((await call(r, 'GET', '/merge-requests')).body).toEqual([]);
    expect(await call(r, 'POST', '/merge-requests/1/merge')).toEqual({ status: 409, body: { error: 'Merge request is not open' } });

    const reopened = await call(r, 'PATCH', '/merge-requests/1', { state: 'open' });
    expect(reopened).toMatchObject({ status: 200, body: { state: 'open', head_sha: await tip(r, 'feature') } });
    const activity = await call(r, 'GET', '/activity');
    expect(activity.body.map((a) => a.action)).toEqual(['reopen_mr', 'close_mr', 'update_mr', 'create_mr']);
    expect(activity.body[2]).toMatchObject({ user_id: 'u-bob', data: { mr_number: 1, changes: { title: { from: 'Feature', to: 'Parked' } } } });
    await waitFor(() => eventsOf(r).length === 4);
    expect(eventsOf(r)).toEqual(['opened', 'edited', 'closed', 'reopened']);
  });

  it('when a comment is added, then its `merge_request_comment` event goes out through the outbox', async () => {
    const r = await makeRepo();
    await open(r);
    const comments: EventEnvelope[] = [];
    const sub = await stack.bus.subscribe(`comments-${randomUUID()}`, ['merge_request_comment'], async (e) => void comments.push(e));
    const c = await call(r, 'POST', '/merge-requests/1/comments', { body: 'looks good' });
    await waitFor(() => comments.some((e) => e.repository.id === r.id));
    expect(comments.find((e) => e.repository.id === r.id)!.payload).toMatchObject({ action: 'created', sender: { username: 'bob' }, comment: { id: c.body.id, body: 'looks good' } });
    await sub.close();
  });

  it('when the merge request is merged, then it can be neither closed nor reopened (409)', async () => {
    const r = await makeRepo();
    await open(r);
    await call(r, 'POST', '/merge-requests/1/merge');
    expect(await call(r, 'PATCH', '/merge-requests/1', { state: 'closed' })).toEqual({ status: 409, body: { error: 'Merge request is already merged' } });
  });
});

describe('following pushes', () => {
  it('when the source is pushed, then head_sha follows with push_mr and one `synchronize`; the same event again changes nothing', async () => {
    const r = await makeRepo();
    const created = (await open(r)).body;
    const [before, after] = await pushCommit(r, 'feature', 'c.txt');
    const event = pushEvent(r, 'refs/heads/feature', before, after);
    await stack.bus.publish(event);
    const detail = (await call(r, 'GET', '/merge-requests/1')).body;
    expect(detail).toMatchObject({ source_sha: after, head_sha: after });
    expect((await call(r, 'GET', '/merge-requests')).body[0]).toMatchObject({ source_sha: created.source_sha, head_sha: after });
    expect((await call(r, 'GET', '/activity')).body[0]).toMatchObject({ action: 'push_mr', user_id: 'u-carol', data: { mr_number: 1, before, after, new_commits: 1, forced: false } });
    await stack.bus.publish(event);
    await waitFor(() => eventsOf(r).includes('synchronize'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(eventsOf(r)).toEqual(['opened', 'synchronize']);
    expect((await call(r, 'GET', '/activity')).body.filter((a) => a.action === 'push_mr')).toHaveLength(1);
  });

  it('when the source is rebased and force-pushed, then head_sha is the new tip and the push is recorded as forced', async () => {
    const r = await makeRepo();
    await open(r);
    const before = await tip(r, 'feature');
    await git(r.wd, 'checkout', '-q', 'feature');
    await git(r.wd, 'commit', '-q', '--amend', '-m', 'feature one, reworded');
    const [, after] = await pushCommit(r, 'feature', 'd.txt', { force: true });
    await stack.bus.publish(pushEvent(r, 'refs/heads/feature', before, after, 'carol', 2));
    expect((await call(r, 'GET', '/merge-requests/1')).body).toMatchObject({ head_sha: after });
    expect((await call(r, 'GET', '/activity')).body[0]).toMatchObject({ action: 'push_mr', data: { forced: true, new_commits: 2 } });
    const commits = (await call(r, 'GET', '/merge-requests/1/commits')).body;
    expect(commits.map((c) => (c.message as string).trim())).toEqual(['feature one, reworded', 'change d.txt']);
    expect(commits[1]).toMatchObject({ sha: after, parents: [commits[0]!.sha], author: { name: 'Test Author', email: 'author@example.com' } });
  });

  it('when the target is pushed with the source in it, then merged by itself with merged_by the pusher and exactly one `merged` event', async () => {
    const r = await makeRepo();
    await open(r);
    const head = await tip(r, 'feature');
    const before = await tip(r, 'main');
    await git(r.bare, 'update-ref', 'refs/heads/main', head, before);
    stack.storage.service.context.refs.invalidate(r.bare);
    const event = pushEvent(r, 'refs/heads/main', before, head, 'bob');
    await stack.bus.publish(event);
    await stack.bus.publish(event);
    expect((await call(r, 'GET', '/merge-requests/1')).body).toMatchObject({ state: 'merged', merged_sha: head, merged_by: 'u-bob' });
    expect((await call(r, 'GET', '/activity')).body[0]).toMatchObject({ action: 'merge_mr', user_id: 'u-bob', data: { merged_sha: head } });
    await waitFor(() => eventsOf(r).includes('merged'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(eventsOf(r)).toEqual(['opened', 'merged']);
    expect(stack.events.find((e) => e.repository.id === r.id && (e.payload as { action: string }).action === 'merged')!.payload).toEqual({
      event: 'merge_request',
      action: 'merged',
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' },
      sender: { username: 'alice' },
      merge_request: { number: 1, title: 'Feature', state: 'merged' },
    });
  });

  it('when the target push arrives while a merge of it is in flight, then the consumer waits and the merge alone records the outcome', async () => {
    const r = await makeRepo();
    const created = (await open(r)).body;
    const head = await tip(r, 'feature');
    const before = await tip(r, 'main');
    const db = await openDatabase({ url: stack.config.databaseUrl, schema: 'merge_requests' });
    try {
      const store = new PgMergeRequestStore(db);
      const repo = { id: r.id, owner: 'alice', name: 'proj', shard: 'default' };
      await store.claimMerge({ mr_id: created.id as string, repo, merger_id: 'u-bob', request_id: 'api-merge' });
      await git(r.bare, 'update-ref', 'refs/heads/main', head, before);
      stack.storage.service.context.refs.invalidate(r.bare);
      const delivered = stack.bus.publish(pushEvent(r, 'refs/heads/main', before, head, 'carol'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await store.completeMerge({ mr_id: created.id as string, merged_sha: head, merged_by: 'u-bob', event: (m) => mergeRequestEvent(m, repo, 'api-merge') });
      await delivered;
    } finally {
      await db.close();
    }
    expect((await call(r, 'GET', '/merge-requests/1')).body).toMatchObject({ state: 'merged', merged_sha: head, merged_by: 'u-bob' });
    expect((await call(r, 'GET', '/activity')).body.filter((a) => a.action === 'merge_mr')).toHaveLength(1);
  });

  it('when the source branch is deleted, then it stays open, the deletion is recorded and merging answers the seed 404', async () => {
    const r = await makeRepo();
    await open(r);
    const head = await tip(r, 'feature');
    await git(r.bare, 'update-ref', '-d', 'refs/heads/feature');
    stack.storage.service.context.refs.invalidate(r.bare);
    await stack.bus.publish(pushEvent(r, 'refs/heads/feature', head, ZERO));
    expect((await call(r, 'GET', '/merge-requests/1')).body).toMatchObject({ state: 'open', head_sha: head });
    expect((await call(r, 'GET', '/activity')).body[0]).toMatchObject({ action: 'push_mr', data: { deleted: true, before: head, after: ZERO } });
    expect(await call(r, 'POST', '/merge-requests/1/merge')).toEqual({ status: 404, body: { error: 'Source branch not found: feature' } });
  });

  it('when a merge through the API moves the target, then another merge request on the same branches stays open', async () => {
    const r = await makeRepo();
    await open(r);
    await open(r);
    const head = await tip(r, 'feature');
    const before = await tip(r, 'main');
    expect((await call(r, 'POST', '/merge-requests/1/merge')).body).toMatchObject({ sha: head, strategy: 'fast-forward' });
    await stack.bus.publish(pushEvent(r, 'refs/heads/main', before, head, 'bob'));
    expect((await call(r, 'GET', '/merge-requests/2')).body).toMatchObject({ state: 'open' });
  });

  it('when the repository is deleted, then its merge requests, comments and activity are gone', async () => {
    const r = await makeRepo();
    await open(r);
    // a table added later with a repo_id column is swept too
    const db = await openDatabase({ url: stack.config.databaseUrl, schema: 'merge_requests' });
    await db.query('CREATE TABLE IF NOT EXISTS later_rows (repo_id text NOT NULL)');
    await db.query('INSERT INTO later_rows (repo_id) VALUES ($1), ($2)', [r.id, 'another-repo']);
    await call(r, 'POST', '/merge-requests/1/comments', { body: 'x' });
    await stack.bus.publish({ ...pushEvent(r, 'refs/heads/x', ZERO, ZERO), kind: 'repository_deleted', payload: { event: 'repository_deleted', repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' }, sender: { username: 'alice' } } });
    expect(await call(r, 'GET', '/merge-requests/1')).toEqual({ status: 404, body: { error: 'Merge request #1 not found' } });
    expect((await call(r, 'GET', '/activity')).body).toEqual([]);
    // the name can be used again: numbers start over
    expect((await open(r)).body).toMatchObject({ number: 1 });
    expect((await db.query<{ repo_id: string }>('SELECT repo_id FROM later_rows')).rows).toEqual([{ repo_id: 'another-repo' }]);
    await db.close();
  });
});

describe('merge options with real git', () => {
  it('when squashed, then one commit on the target tip with the merged tree, author the MR author, committer the merger', async () => {
    const r = await makeRepo();
    await open(r);
    await pushCommit(r, 'feature', 'c.txt');
    const [, mainTip] = await pushCommit(r, 'main', 'm.txt');
    const expectedTree = (await git(r.bare, 'merge-tree', '--write-tree', mainTip, await tip(r, 'feature'))).trim();
    const res = await call(r, 'POST', '/merge-requests/1/merge', { strategy: 'squash' }, { as: carol });
    expect(res).toMatchObject({ status: 200, body: { merged: true, strategy: 'squash' } });
    const sha = res.body.sha as string;
    expect(await tip(r, 'main')).toBe(sha);
    expect((await git(r.bare, 'rev-list', '--parents', '-n', '1', sha)).trim().split(' ').slice(1)).toEqual([mainTip]);
    expect((await git(r.bare, 'rev-parse', `${sha}^{tree}`)).trim()).toBe(expectedTree);
    expect((await git(r.bare, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%B', sha)).trim()).toBe('bob <bob@example.com>|carol <carol@example.com>|Feature (#1)\n\n* feature one\n* change c.txt');
  });

  it('when sha is stale or fast-forward-only cannot fast-forward, then 409 and nothing moved', async () => {
    const r = await makeRepo();
    await open(r);
    const [, mainTip] = await pushCommit(r, 'main', 'm.txt');
    expect(await call(r, 'POST', '/merge-requests/1/merge', { sha: mainTip })).toEqual({ status: 409, body: { error: 'Head branch was modified' } });
    expect(await call(r, 'POST', '/merge-requests/1/merge', { strategy: 'fast-forward-only' })).toEqual({ status: 409, body: { error: 'Fast-forward merge is not possible' } });
    expect(await call(r, 'POST', '/merge-requests/1/merge', { strategy: 'rebase' })).toEqual({ status: 400, body: { error: 'strategy must be one of: merge-commit, squash, fast-forward-only' } });
    expect(await tip(r, 'main')).toBe(mainTip);
  });

  it('when delete_source_branch is asked, then the merge goes through and the source branch is gone', async () => {
    const r = await makeRepo();
    await open(r);
    const head = await tip(r, 'feature');
    expect(await call(r, 'POST', '/merge-requests/1/merge', { sha: head, delete_source_branch: true })).toEqual({ status: 200, body: { merged: true, sha: head, strategy: 'fast-forward', source_branch_deleted: true } });
    await expect(git(r.bare, 'rev-parse', '--verify', '-q', 'refs/heads/feature')).rejects.toThrow();
  });
});

describe('over RabbitMQ', () => {
  let bus: EventBus;
  let rabbit: Stack;
  const exchange = uniqueTestName('mr-follow', 'exchange');
  const queue = uniqueTestName('mr-follow', 'queue');
  beforeAll(async () => {
    bus = createEventBus({ amqpUrl: TEST_AMQP_URL, exchange, logger: createLogger('bus', 'silent') });
    rabbit = await startStack({ bus }, { eventsQueue: queue, eventsExchange: exchange });
  });
  afterAll(async () => {
    await rabbit?.stop();
    await bus?.close();
    await removeBrokerTopology(TEST_AMQP_URL, exchange, [queue]);
  });

  it('when a push event comes through the broker, then the merge request follows it', async () => {
    const r = await makeRepo(rabbit);
    await open(r, { baseUrl: rabbit.baseUrl });
    const before = (await git(r.bare, 'rev-parse', 'refs/heads/feature')).trim();
    await git(r.wd, 'checkout', '-q', 'feature');
    await writeFiles(r.wd, { 'z.txt': 'z\n' });
    const after = await commitAll(r.wd, 'over the broker');
    await pushTo(rabbit.storage, r.id, r.wd, 'feature');
    await bus.publish(pushEvent(r, 'refs/heads/feature', before, after));
    await waitFor(async () => (await call(r, 'GET', '/merge-requests/1', undefined, { baseUrl: rabbit.baseUrl })).body.head_sha === after);
  });
});
