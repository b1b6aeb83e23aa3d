import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrate, type Database } from '@githost/db';
import { MIGRATIONS } from '../src/db/migrations.js';
import { INTENT_STALE_AFTER_MS, LEFT_INTENT_RECOVERY_MS, PgMergeRequestStore } from '../src/db/merge-request-store.js';
import { mergeRequestEvent } from '../src/domain/merge-request-event.js';
import type { MergeRequest } from '../src/domain/types.js';
import { storeBackends } from './support/backends.js';

const SHA = 'a'.repeat(40);
const repo = { id: 'repo-1', owner: 'alice', name: 'proj', shard: 'shard-2' };
const newMr = (title: string, repoId = repo.id) => ({ repo_id: repoId, title, description: null, author_id: 'u1', source_branch: 'f', target_branch: 'main', source_sha: SHA });

const backends = storeBackends('githost_mr_store');

describe.each(backends)('PgMergeRequestStore on %s', (_name, open) => {
  let db: Database;
  let done: () => Promise<void>;
  let store: PgMergeRequestStore;

  beforeAll(async () => {
    ({ db, done } = await open());
    expect(await migrate(db, MIGRATIONS)).toEqual(MIGRATIONS.map((m) => m.version));
    store = new PgMergeRequestStore(db);
  });
  afterAll(async () => done());

  it('when migrations run again, then nothing is applied twice', async () => {
    expect(await migrate(db, MIGRATIONS)).toEqual([]);
    const tables = await db.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'merge_requests' ORDER BY table_name`);
    expect(tables.rows.map((r) => r.table_name)).toEqual(['activity', 'commit_status_counts', 'commit_statuses', 'handled_events', 'merge_intents', 'merge_request_comments', 'merge_request_counters', 'merge_request_review_requests', 'merge_request_reviews', 'merge_requests', 'outbox', 'schema_migrations']);
  });

  it('when 50 merge requests are created at once, then they get numbers 1..50 with no gap or duplicate', async () => {
    const created = await Promise.all(Array.from({ length: 50 }, (_, i) => store.create(newMr(`mr ${i}`, 'repo-race'))));
    expect(created.map((m) => m.number).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const again = await store.create(newMr('next', 'repo-race'));
    expect(again.number).toBe(51);
    const list = await store.list('repo-race', 'open', 50);
    expect(list).toHaveLength(50);
    expect(list[0]!.number).toBe(51);
  });

  it('when created, then the complete record comes back and a create_mr activity is logged', async () => {
    const mr = await store.create({ ...newMr('first'), description: 'why' });
    expect(mr).toMatchObject({ repo_id: repo.id, number: 1, title: 'first', description: 'why', author_id: 'u1', source_branch: 'f', target_branch: 'main', source_sha: SHA, state: 'open', merged_sha: null, merged_by: null });
    expect(mr.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await store.findByNumber(repo.id, 1)).toEqual(mr);
    expect((await store.listActivity(repo.id, 10))[0]).toMatchObject({ action: 'create_mr', user_id: 'u1', data: { mr_number: 1, mr_title: 'first' } });
  });

  it('when comments are added, then they are listed oldest first with every column', async () => {
    const mr = (await store.findByNumber(repo.id, 1))!;
    await store.addComment({ mr_id: mr.id, author_id: 'u2', body: 'one', file_path: 'a.txt', line_number: 3, diff_side: 'new' });
    await store.addComment({ mr_id: mr.id, author_id: 'u3', body: 'two', file_path: null, line_number: null, diff_side: null });
    const comments = await store.listComments(mr.id);
    expect(comments.map((c) => [c.body, c.author_id, c.file_path, c.line_number, c.diff_side])).toEqual([
      ['one', 'u2', 'a.txt', 3, 'new'],
      ['two', 'u3', null, null, null],
    ]);
  });

  it('when two merges claim one merge request, then one wins; completing writes state, activity, outbox and frees the slot', async () => {
    const mr = (await store.findByNumber(repo.id, 1))!;
    const plan = { target_ref: 'refs/heads/main', old_oid: SHA, new_oid: 'b'.repeat(40), strategy: 'merge-commit' as const };
    const claims = await Promise.all(Array.from({ length: 5 }, () => store.claimMerge({ mr_id: mr.id, repo, merger_id: 'u9', request_id: 'req', plan })));
    expect(claims.filter((c) => c === 'claimed')).toHaveLength(1);
    expect(await store.staleIntents(0)).toEqual([
      { mr_id: mr.id, repo, merger_id: 'u9', request_id: 'req', target_ref: 'refs/heads/main', old_oid: SHA, new_oid: 'b'.repeat(40), strategy: 'merge-commit' },
    ]);
    expect(await store.staleIntents(60_000)).toEqual([]);
    const merged = await store.completeMerge({ mr_id: mr.id, merged_sha: 'b'.repeat(40), merged_by: 'u9', event: (m) => mergeRequestEvent(m, repo, 'req') });
    expect(merged).toMatchObject({ state: 'merged', merged_sha: 'b'.repeat(40), merged_by: 'u9' });
    expect(merged!.updated_at > mr.updated_at).toBe(true);
    expect((await store.listActivity(repo.id, 10))[0]).toMatchObject({ action: 'merge_mr', user_id: 'u9', data: { mr_number: 1, mr_title: 'first', merged_sha: 'b'.repeat(40) } });
    const outbox = await db.query<{ kind: string; envelope: { payload: unknown } }>('SELECT kind, envelope FROM outbox');
    expect(outbox.rows).toEqual([{ kind: 'merge_request', envelope: expect.objectContaining({ payload: expect.objectContaining({ merge_request: { number: 1, title: 'first', state: 'merged' } }) }) }]);
    expect(await store.staleIntents(0)).toEqual([]);
    expect(await store.claimMerge({ mr_id: mr.id, repo, merger_id: 'u9', request_id: null })).toBe('not_open');
    expect(await store.completeMerge({ mr_id: mr.id, merged_sha: 'c'.repeat(40), merged_by: 'u9', event: (m) => mergeRequestEvent(m, repo, null) })).toBeNull();
  });

  it('when a claim waits on a completion of the same merge request, then it sees the merged row and claims nothing', async () => {
    const mr = await store.create(newMr('raced', 'repo-raced'));
    let claim: Promise<string> | undefined;
    await db.transaction(async (tx) => {
      await tx.query(`UPDATE merge_requests SET state = 'merged' WHERE id = $1`, [mr.id]);
      claim = store.claimMerge({ mr_id: mr.id, repo, merger_id: 'u9', request_id: null });
      await new Promise((r) => setTimeout(r, 200)); // the claim now waits on the row lock (PGlite: on the transaction)
    });
    expect(await claim).toBe('not_open');
    expect((await store.staleIntents(0)).map((i) => i.mr_id)).not.toContain(mr.id);
  });

  it('when a merge completes while its ref moves, then nothing shows until the move is known: a failed move leaves the claim as it was, a done one commits', async () => {
    const mr = await store.create(newMr('moving', 'repo-moving'));
    const plan = { target_ref: 'refs/heads/main', old_oid: SHA, new_oid: 'c'.repeat(40), strategy: 'fast-forward' as const };
    expect(await store.claimMerge({ mr_id: mr.id, repo, merger_id: 'u9', request_id: null, plan })).toBe('claimed');
    const completion = { mr_id: mr.id, merged_sha: 'c'.repeat(40), merged_by: 'u9', event: (m: MergeRequest) => mergeRequestEvent(m, repo, null) };
    const intentsOfRepo = async () => (await store.staleIntents(0)).filter((i) => i.mr_id === mr.id).map((i) => i.new_oid);
    const outboxOfRepo = async () => (await db.query(`SELECT id FROM outbox WHERE envelope->'payload'->'merge_request'->>'title' = 'moving'`)).rows.length;
    let settle!: (moved: boolean) => void;
    const failed = store.completeMergeOnMove(completion, new Promise<boolean>((r) => (settle = r)));
    await new Promise((r) => setTimeout(r, 100)); // on Postgres the writes are made by now, not committed
    expect([(await store.findById(mr.id))!.state, await intentsOfRepo(), await outboxOfRepo()]).toEqual(['open', ['c'.repeat(40)], 0]);
    settle(false);
    expect(await failed).toBe('not_moved');
    expect([(await store.findById(mr.id))!.state, await intentsOfRepo(), await outboxOfRepo()]).toEqual(['open', ['c'.repeat(40)], 0]);
    expect(await store.completeMergeOnMove(completion, Promise.resolve(true))).toMatchObject({ state: 'merged', merged_sha: 'c'.repeat(40), merged_by: 'u9' });
    expect([(await store.findById(mr.id))!.state, await intentsOfRepo(), await outboxOfRepo()]).toEqual(['merged', [], 1]);
    expect((await store.listActivity('repo-moving', 10)).map((a) => a.action)).toEqual(['merge_mr', 'create_mr']);
  });

  it('when a live merge holds its intent, then its heartbeat keeps it out of recovery; a dead process\'s intent goes stale', async () => {
    const live = new PgMergeRequestStore(db, { heartbeatMs: 50 });
    const dead = new PgMergeRequestStore(db, { heartbeatMs: 3_600_000 }); // claims, then never beats again
    const mrLive = await store.create(newMr('held by a live merge', 'repo-heartbeat'));
    const mrDead = await store.create(newMr('held by a dead process', 'repo-heartbeat'));
    expect(await live.claimMerge({ mr_id: mrLive.id, repo, merger_id: 'u9', request_id: null })).toBe('claimed');
    expect(await dead.claimMerge({ mr_id: mrDead.id, repo, merger_id: 'u9', request_id: null })).toBe('claimed');
    await new Promise((r) => setTimeout(r, 1_500));
    const stale = (await store.staleIntents(1_000)).map((i) => i.mr_id);
    expect(stale).toContain(mrDead.id);
    expect(stale).not.toContain(mrLive.id);
    await live.releaseMerge(mrLive.id);
    await dead.releaseMerge(mrDead.id);
    const left = (await store.staleIntents(0)).map((i) => i.mr_id);
    expect([left.includes(mrLive.id), left.includes(mrDead.id)]).toEqual([false, false]);
  });

  it('when a merge is left to recovery, then its intent stays, is no longer refreshed, and is due LEFT_INTENT_RECOVERY_MS from now, not a whole grace', async () => {
    const merging = new PgMergeRequestStore(db, { heartbeatMs: 50 });
    const mr = await store.create(newMr('outcome unknown', 'repo-left'));
    const other = await store.create(newMr('still merging', 'repo-left'));
    expect(await merging.claimMerge({ mr_id: mr.id, repo, merger_id: 'u9', request_id: null })).toBe('claimed');
    expect(await merging.claimMerge({ mr_id: other.id, repo, merger_id: 'u9', request_id: null })).toBe('claimed');
    await merging.leaveForRecovery(mr.id, null);
    await new Promise((r) => setTimeout(r, 300)); // beats of the merge still held
    const idle = (olderThanMs: number) => store.staleIntents(olderThanMs).then((intents) => intents.map((i) => i.mr_id));
    expect(await idle(INTENT_STALE_AFTER_MS)).not.toContain(mr.id);
    expect(await idle(INTENT_STALE_AFTER_MS - LEFT_INTENT_RECOVERY_MS)).toContain(mr.id);
    expect(await idle(INTENT_STALE_AFTER_MS - LEFT_INTENT_RECOVERY_MS)).not.toContain(other.id);
    await merging.releaseMerge(other.id);
    await store.releaseMerge(mr.id);
  });

  it('when the database does not answer as a merge is left to recovery, then it is asked again until it does, and only the intent of that attempt is dated back', async () => {
    let refusals = 0;
    // The database away for the next `refusals` statements, as during a restart.
    const flaky = new Proxy(db, {
      get: (target, key) => (key === 'query' ? (...args: Parameters<Database['query']>) => (refusals-- > 0 ? Promise.reject(new Error('Connection terminated unexpectedly')) : target.query(...args)) : Reflect.get(target, key)),
    });
    const merging = new PgMergeRequestStore(flaky, { heartbeatMs: 60_000 });
    const mr = await store.create(newMr('completion lost', 'repo-flaky'));
    const other = await store.create(newMr('another attempt', 'repo-flaky'));
    expect(await merging.claimMerge({ mr_id: mr.id, repo, merger_id: 'u9', request_id: 'req-lost' })).toBe('claimed');
    expect(await merging.claimMerge({ mr_id: other.id, repo, merger_id: 'u9', request_id: 'req-live' })).toBe('claimed');
    const due = () => store.staleIntents(INTENT_STALE_AFTER_MS - LEFT_INTENT_RECOVERY_MS).then((intents) => intents.map((i) => i.mr_id));
    await merging.leaveForRecovery(other.id, 'req-not-this-one');
    refusals = 2;
    await expect(merging.leaveForRecovery(mr.id, 'req-lost')).rejects.toThrow('Connection terminated');
    expect(await due()).not.toContain(mr.id);
    await new Promise((r) => setTimeout(r, 1_500)); // refused once more at 0.5 s, answered at 1 s
    expect(await due()).toEqual(expect.arrayContaining([mr.id]));
    expect(await due()).not.toContain(other.id);
    await store.releaseMerge(mr.id);
    await store.releaseMerge(other.id);
  });

  it('when a claim is released, then the merge request can be claimed again', async () => {
    const mr = await store.create(newMr('second'));
    expect(await store.claimMerge({ mr_id: mr.id, repo, merger_id: null, request_id: null })).toBe('claimed');
    await store.releaseMerge(mr.id);
    expect(await store.staleIntents(0)).toEqual([]);
    expect(await store.claimMerge({ mr_id: mr.id, repo, merger_id: null, request_id: null })).toBe('claimed');
  });

  it('when listing by state, then exact match, newest first', async () => {
    expect((await store.list(repo.id, 'merged', 50)).map((m) => m.title)).toEqual(['first']);
    expect((await store.list(repo.id, 'open', 50)).map((m) => m.title)).toEqual(['second']);
    expect(await store.list(repo.id, 'MERGED', 50)).toEqual([]);
  });
});
