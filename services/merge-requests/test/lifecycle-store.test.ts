import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { migrate, type Database } from '@githost/db';
import { MIGRATIONS } from '../src/db/migrations.js';
import { PgMergeRequestStore } from '../src/db/merge-request-store.js';
import type { MergeRequestChange } from '../src/domain/ports.js';
import type { MergeRequest } from '../src/domain/types.js';
import { storeBackends } from './support/backends.js';

const SHA = 'a'.repeat(40);
const NEXT = 'b'.repeat(40);

const backends = storeBackends('githost_mr_lifecycle');

const envelope = (mr: MergeRequest, action: string) => ({ id: randomUUID(), kind: 'merge_request', occurred_at: mr.updated_at, repository: { id: mr.repo_id, owner: 'o', name: 'n' }, payload: { action, number: mr.number } });

describe.each(backends)('lifecycle queries on %s', (_name, open) => {
  let db: Database;
  let done: () => Promise<void>;
  let store: PgMergeRequestStore;
  const create = (repoId: string, source = 'feature') =>
    store.create({ repo_id: repoId, title: 'T', description: null, author_id: 'u1', source_branch: source, target_branch: 'main', source_sha: SHA }, { shard: 'shard-7', event: (mr) => envelope(mr, 'opened') });
  const outboxActions = async () => (await db.query<{ envelope: { payload: { action: string } } }>('SELECT envelope FROM outbox ORDER BY id')).rows.map((r) => r.envelope.payload.action);
  const sync = (mr: MergeRequest, head: string, extra: Partial<MergeRequestChange> = {}): MergeRequestChange => ({
    mr_id: mr.id,
    from_state: 'open',
    set: { head_sha: head },
    activities: [{ user_id: 'u2', action: 'push_mr', data: { after: head } }],
    events: (after) => [envelope(after, 'synchronize')],
    ...extra,
  });

  beforeAll(async () => {
    ({ db, done } = await open());
    await migrate(db, MIGRATIONS);
    store = new PgMergeRequestStore(db);
  });
  afterAll(async () => done());

  it('when created, then head_sha is the source tip, the shard is kept and the opened event is in the outbox', async () => {
    const mr = await create('r-create');
    expect(mr).toMatchObject({ source_sha: SHA, head_sha: SHA });
    expect(await store.shardOf('r-create')).toBe('shard-7');
    expect(await store.shardOf('r-none')).toBeNull();
    expect(await outboxActions()).toContain('opened');
  });

  it('when an event is applied twice, then its changes, activity and events are written once', async () => {
    const mr = await create('r-twice');
    const eventId = randomUUID();
    expect(await store.applyEvent(eventId, 'r-twice', [sync(mr, NEXT)])).toBe(true);
    expect(await store.wasHandled(eventId)).toBe(true);
    expect(await store.applyEvent(eventId, 'r-twice', [sync(mr, 'c'.repeat(40))])).toBe(false);
    expect((await store.findById(mr.id))!.head_sha).toBe(NEXT);
    expect((await store.listActivity('r-twice', 10)).map((a) => a.action)).toEqual(['push_mr', 'create_mr']);
    expect((await outboxActions()).filter((a) => a === 'synchronize')).toHaveLength(1);
  });

  it('when a change meets a merge in flight, then conflict and nothing of the event is written', async () => {
    const mr = await create('r-merging');
    const other = await create('r-merging', 'other');
    await store.claimMerge({ mr_id: mr.id, repo: { id: 'r-merging', owner: 'o', name: 'n', shard: 'default' }, merger_id: null, request_id: null });
    const eventId = randomUUID();
    const close: MergeRequestChange = { mr_id: mr.id, from_state: 'open', set: { state: 'closed' }, activities: [], events: () => [], unless_merging: true };
    await expect(store.applyEvent(eventId, 'r-merging', [sync(other, NEXT), close])).rejects.toMatchObject({ kind: 'conflict' });
    expect(await store.wasHandled(eventId)).toBe(false);
    expect((await store.findById(other.id))!.head_sha).toBe(SHA);
    expect((await store.findById(mr.id))!.state).toBe('open');
  });

  it('when the state no longer matches, then the change is skipped (null)', async () => {
    const mr = await create('r-stale');
    expect(await store.applyChange({ ...sync(mr, NEXT), from_state: 'closed' })).toBeNull();
    expect((await store.applyChange(sync(mr, NEXT)))!.head_sha).toBe(NEXT);
  });

  describe('open merge requests on a branch', () => {
    const close = (mr: MergeRequest, state: string) => store.applyChange({ mr_id: mr.id, from_state: 'open', set: { state }, activities: [], events: () => [] });
    const ids = async (repoId: string, branch: string) => (await store.openOnBranch(repoId, branch)).map((m) => m.id);
    let fromFeature: MergeRequest; // feature -> main
    let fromMain: MergeRequest; // main -> release
    let closed: MergeRequest;
    let merged: MergeRequest;

    beforeAll(async () => {
      const make = (source: string, target: string, repoId = 'r-branch') =>
        store.create({ repo_id: repoId, title: `${source} -> ${target}`, description: null, author_id: 'u1', source_branch: source, target_branch: target, source_sha: SHA });
      fromFeature = await make('feature', 'main');
      fromMain = await make('main', 'release');
      closed = await make('closed-src', 'closed-dst');
      merged = await make('merged-src', 'closed-dst');
      await close(closed, 'closed');
      await close(merged, 'merged');
      await make('feature', 'main', 'r-branch-other');
      await make('only-other', 'main', 'r-branch-other');
    });

    it('when the branch is a source, then that merge request, whole', async () => {
      expect(await store.openOnBranch('r-branch', 'feature')).toEqual([{ ...fromFeature }]);
    });

    it('when the branch is a target, then that merge request', async () => {
      expect(await ids('r-branch', 'release')).toEqual([fromMain.id]);
    });

    it('when the branch is the target of one and the source of another, then both, by number', async () => {
      expect(await ids('r-branch', 'main')).toEqual([fromFeature.id, fromMain.id]);
    });

    it('when the only merge requests on the branch are closed or merged, or on another repository, then none', async () => {
      expect(await ids('r-branch', 'closed-src')).toEqual([]);
      expect(await ids('r-branch', 'merged-src')).toEqual([]);
      expect(await ids('r-branch', 'closed-dst')).toEqual([]);
      expect(await ids('r-branch', 'only-other')).toEqual([]);
      expect(await ids('r-branch-none', 'main')).toEqual([]);
    });

    it('when lookups are made at the same time, then they share one query and each gets its own answer', async () => {
      let queries = 0;
      const counted: Database = Object.assign(Object.create(db) as Database, {
        query: (sql: string, params?: unknown[]) => (queries++, db.query(sql, params)),
      });
      const batched = new PgMergeRequestStore(counted);
      const keys: Array<[string, string]> = [
        ['r-branch', 'main'],
        ['r-branch', 'feature'],
        ['r-branch', 'main'],
        ['r-branch', 'closed-src'],
        ['r-branch-other', 'main'],
        ['r-branch', 'nothing-here'],
      ];
      const answers = await Promise.all(keys.map(([repo, branch]) => batched.openOnBranch(repo, branch)));
      expect(queries).toBe(1);
      expect(answers.map((a) => a.map((m) => `${m.repo_id} ${m.source_branch} -> ${m.target_branch}`))).toEqual([
        ['r-branch feature -> main', 'r-branch main -> release'],
        ['r-branch feature -> main'],
        ['r-branch feature -> main', 'r-branch main -> release'],
        [],
        ['r-branch-other feature -> main', 'r-branch-other only-other -> main'],
        [],
      ]);
      expect(answers[0]![0]).not.toBe(answers[2]![0]); // copies: one caller's record is not another's
    });

    it('when a merge request is opened after a lookup, then the next lookup sees it (nothing is kept between lookups)', async () => {
      expect(await ids('r-branch', 'late')).toEqual([]);
      const late = await store.create({ repo_id: 'r-branch', title: 'late', description: null, author_id: 'u1', source_branch: 'late', target_branch: 'main', source_sha: SHA });
      expect(await ids('r-branch', 'late')).toEqual([late.id]);
    });
  });

  it('when a repository is deleted, then all its rows go (tables with repo_id included) and other repositories stay', async () => {
    const mr = await create('r-gone');
    await create('r-kept');
    await store.addComment({ mr_id: mr.id, author_id: 'u1', body: 'x', file_path: null, line_number: null, diff_side: null });
    await store.claimMerge({ mr_id: mr.id, repo: { id: 'r-gone', owner: 'o', name: 'n', shard: 'default' }, merger_id: null, request_id: null });
    await store.applyEvent(randomUUID(), 'r-gone', []);
    await db.query('CREATE TABLE later_rows (repo_id text NOT NULL)');
    await db.query(`INSERT INTO later_rows VALUES ('r-gone'), ('r-kept')`);
    await store.deleteRepository('r-gone');
    expect(await store.findById(mr.id)).toBeNull();
    expect(await store.listActivity('r-gone', 10)).toEqual([]);
    expect((await db.query('SELECT 1 FROM merge_request_comments WHERE mr_id = $1', [mr.id])).rows).toEqual([]);
    expect((await db.query(`SELECT 1 FROM handled_events WHERE repo_id = 'r-gone'`)).rows).toEqual([]);
    expect((await db.query<{ repo_id: string }>('SELECT repo_id FROM later_rows')).rows).toEqual([{ repo_id: 'r-kept' }]);
    expect(await store.list('r-kept', 'open', 10)).toHaveLength(1);
    // numbers start over for a repository of the same id
    expect((await create('r-gone')).number).toBe(1);
  });
});
