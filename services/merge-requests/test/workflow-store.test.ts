import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@githost/bus';
import { migrate, type Database } from '@githost/db';
import { MIGRATIONS } from '../src/db/migrations.js';
import { PgMergeRequestStore } from '../src/db/merge-request-store.js';
import { PgReviewStore } from '../src/db/review-store.js';
import { PgStatusStore } from '../src/db/status-store.js';
import type { NewStatus } from '../src/domain/ports.js';
import { storeBackends } from './support/backends.js';

const SHA = 'a'.repeat(40);
const event = (kind: string) => (): EventEnvelope => ({ id: randomUUID(), kind, occurred_at: new Date().toISOString(), repository: { id: 'r', owner: 'o', name: 'n' }, payload: { kind } });
const status = (over: Partial<NewStatus> = {}): NewStatus => ({ repo_id: 'repo-1', sha: SHA, state: 'pending', context: 'ci', description: null, target_url: null, creator_id: 'u1', creator_username: 'ci', ...over });

const backends = storeBackends('githost_mr_workflow_store');

describe.each(backends)('review and status stores on %s', (_name, open) => {
  let db: Database;
  let done: () => Promise<void>;

  beforeAll(async () => {
    ({ db, done } = await open());
    await migrate(db, MIGRATIONS);
  });
  afterAll(async () => done());

  const outboxKinds = async () => (await db.query<{ kind: string }>(`SELECT kind FROM outbox ORDER BY 1`)).rows.map((r) => r.kind);

  it('when reviews are added, then they come back oldest first with every column, each with its outbox row', async () => {
    const mr = await new PgMergeRequestStore(db).create({ repo_id: 'repo-1', title: 't', description: null, author_id: 'u1', source_branch: 'f', target_branch: 'main', source_sha: SHA });
    const reviews = new PgReviewStore(db);
    const first = await reviews.addReview({ mr_id: mr.id, author_id: 'u2', state: 'approved', body: '', commit_sha: SHA, reviewer_permission: 'write' }, event('review'));
    await reviews.addReview({ mr_id: mr.id, author_id: null, state: 'changes_requested', body: 'no', commit_sha: SHA, reviewer_permission: 'admin' }, event('review'));
    const list = await reviews.listReviews(mr.id);
    expect(list[0]).toEqual({ id: first.id, mr_id: mr.id, author_id: 'u2', state: 'approved', body: '', commit_sha: SHA, reviewer_permission: 'write', created_at: first.created_at });
    expect(list.map((r) => [r.author_id, r.state, r.reviewer_permission])).toEqual([['u2', 'approved', 'write'], [null, 'changes_requested', 'admin']]);
    expect((await outboxKinds()).filter((k) => k === 'review')).toHaveLength(2);
  });

  it('when reviews are requested, then pending oldest first once each, bounded; a review by one answers (deletes) that request in its transaction', async () => {
    const mr = await new PgMergeRequestStore(db).create({ repo_id: 'repo-3', title: 't', description: null, author_id: 'u1', source_branch: 'f', target_branch: 'main', source_sha: SHA });
    const reviews = new PgReviewStore(db);
    const before = (await outboxKinds()).length;
    const asked: string[][] = [];
    const events = (ids: string[]) => (asked.push(ids), ids.map(() => event('merge_request')()));
    expect(await reviews.addRequests(mr.id, ['u2', 'u3'], 'u1', 3, events)).toBe('ok');
    expect(await reviews.addRequests(mr.id, ['u3'], 'u1', 3, events)).toBe('ok');
    expect(await reviews.addRequests(mr.id, ['u4', 'u5'], 'u1', 3, events)).toBe('limit');
    // Events only for the reviewers added, in the requests' transaction.
    expect([asked, (await outboxKinds()).length - before]).toEqual([[['u2', 'u3']], 2]);
    const pending = async () => (await reviews.listRequests([mr.id])).map((q) => [q.reviewer_id, q.requested_by]);
    expect(await pending()).toEqual([['u2', 'u1'], ['u3', 'u1']]);
    await reviews.addReview({ mr_id: mr.id, author_id: 'u2', state: 'commented', body: 'seen', commit_sha: SHA, reviewer_permission: 'read' }, event('review'));
    expect(await pending()).toEqual([['u3', 'u1']]);
    await reviews.removeRequests(mr.id, ['u3', 'u9'], events);
    expect(await pending()).toEqual([]);
    // The two requests', the review's and the withdrawal's (u9 was not pending: none for it).
    expect([asked.at(-1), (await outboxKinds()).length - before]).toEqual([['u3'], 4]);
  });

  it('when the event cannot be written, then the review is not either (one transaction)', async () => {
    const mr = await new PgMergeRequestStore(db).create({ repo_id: 'repo-2', title: 't', description: null, author_id: 'u1', source_branch: 'f', target_branch: 'main', source_sha: SHA });
    const reviews = new PgReviewStore(db);
    const failing = () => {
      throw new Error('boom');
    };
    await expect(reviews.addReview({ mr_id: mr.id, author_id: 'u2', state: 'approved', body: '', commit_sha: SHA, reviewer_permission: 'write' }, failing)).rejects.toThrow('boom');
    expect(await reviews.listReviews(mr.id)).toEqual([]);
  });

  it('when statuses are added, then listed newest first and paged, latest per context newest first, each with its outbox row', async () => {
    const statuses = new PgStatusStore(db);
    const a = await statuses.addStatus(status({ state: 'pending', description: 'd', target_url: 'https://ci/1' }), 1000, event('status'));
    await statuses.addStatus(status({ state: 'success', context: 'lint' }), 1000, event('status'));
    await statuses.addStatus(status({ state: 'failure' }), 1000, event('status'));
    await statuses.addStatus(status({ sha: 'b'.repeat(40), state: 'error' }), 1000, event('status'));
    expect(a).toEqual({ id: expect.any(String), sha: SHA, state: 'pending', context: 'ci', description: 'd', target_url: 'https://ci/1', creator: { username: 'ci' }, created_at: expect.any(String), updated_at: expect.any(String) });
    expect((await statuses.listStatuses('repo-1', SHA, { limit: 30, offset: 0 })).map((s) => s.state)).toEqual(['failure', 'success', 'pending']);
    expect((await statuses.listStatuses('repo-1', SHA, { limit: 1, offset: 1 })).map((s) => s.state)).toEqual(['success']);
    expect((await statuses.latestPerContext('repo-1', SHA)).map((s) => [s.context, s.state])).toEqual([['ci', 'failure'], ['lint', 'success']]);
    expect(await statuses.latestPerContext('repo-9', SHA)).toEqual([]);
    expect((await outboxKinds()).filter((k) => k === 'status')).toHaveLength(4);
  });

  it('when a context reaches its limit, then `limit` and nothing written; other contexts and shas are unaffected', async () => {
    const statuses = new PgStatusStore(db);
    const sha = 'c'.repeat(40);
    for (let i = 0; i < 3; i++) expect(await statuses.addStatus(status({ sha }), 3, event('status'))).not.toBe('limit');
    expect(await statuses.addStatus(status({ sha }), 3, event('status'))).toBe('limit');
    expect(await statuses.listStatuses('repo-1', sha, { limit: 30, offset: 0 })).toHaveLength(3);
    expect(await statuses.addStatus(status({ sha, context: 'other' }), 3, event('status'))).not.toBe('limit');
  });
});
