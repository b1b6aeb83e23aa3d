import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FileJournal } from '@githost/bus';
import { createLogger } from '@githost/logging';
import { CatfilePool } from '../git/catfile-pool.js';
import { ZERO_OID } from '@githost/git-records/object-id';
import { PushEventRecorder } from './push-events.js';
import { eventIdOf, happenedUpdates, parseIntentRecord, RefIntents, unsettled } from './ref-intents.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const header = JSON.stringify({ gitDir: '/x', context: { repository: { id: 'r', owner: 'o', name: 'n' }, pusher: 'p' } });

describe('parseIntentRecord and happenedUpdates', () => {
  it('when a line is confirmed, then it happened whatever the refs say now', () => {
    const r = parseIntentRecord('id', `${header}\nP ${A} ${B} refs/heads/main\nC ${A} ${B} refs/heads/main\n`);
    expect(r.header?.context.repository.id).toBe('r');
    expect(unsettled(r)).toEqual([]);
    expect(happenedUpdates(r, () => C)).toEqual([{ before: A, after: B, ref: 'refs/heads/main' }]);
  });

  it('when a prepared line is unconfirmed, then it happened iff the ref is now at its new value (absent for a deletion)', () => {
    const r = parseIntentRecord('id', `${header}\nP ${A} ${B} refs/heads/main\nP ${B} ${ZERO_OID} refs/heads/gone\nP ${ZERO_OID} ${C} refs/heads/new\n`);
    const disk: Record<string, string> = { 'refs/heads/main': B, 'refs/heads/new': A };
    expect(happenedUpdates(r, (ref) => disk[ref] ?? ZERO_OID)).toEqual([
      { before: A, after: B, ref: 'refs/heads/main' },
      { before: B, after: ZERO_OID, ref: 'refs/heads/gone' },
    ]);
  });

  it('when a prepared line is aborted, then it did not happen even with the ref at that value', () => {
    const r = parseIntentRecord('id', `${header}\nP ${A} ${B} refs/heads/main\nA ${A} ${B} refs/heads/main\n`);
    expect(happenedUpdates(r, () => B)).toEqual([]);
  });

  it('when git reports one deletion twice (loose and packed), then it is one update, the one with the old value', () => {
    // The order git 2.39 writes them in: the packed-refs side (zero to zero) first.
    const r = parseIntentRecord('id', `${header}\nP ${ZERO_OID} ${ZERO_OID} refs/heads/x\nP ${A} ${ZERO_OID} refs/heads/x\nC ${ZERO_OID} ${ZERO_OID} refs/heads/x\nC ${A} ${ZERO_OID} refs/heads/x\n`);
    expect(happenedUpdates(r, () => ZERO_OID)).toEqual([{ before: A, after: ZERO_OID, ref: 'refs/heads/x' }]);
    const unconfirmed = parseIntentRecord('id', `${header}\nP ${ZERO_OID} ${ZERO_OID} refs/heads/x\nP ${A} ${ZERO_OID} refs/heads/x\n`);
    expect(happenedUpdates(unconfirmed, () => ZERO_OID)).toEqual([{ before: A, after: ZERO_OID, ref: 'refs/heads/x' }]);
  });

  it('when the header was cut by a kill, then there is no header and garbage lines are ignored', () => {
    const r = parseIntentRecord('id', `{"gitDir":"/x","cont\nP nonsense\n`);
    expect(r.header).toBeUndefined();
    expect(r.prepared).toEqual([]);
  });

  it('when the same update of the same record is named twice, then it gets the same UUID-shaped id, and another record another', () => {
    const u = { ref: 'refs/heads/main', before: A, after: B };
    expect(eventIdOf('rec-1', u)).toBe(eventIdOf('rec-1', { ...u }));
    expect(eventIdOf('rec-1', u)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(eventIdOf('rec-2', u)).not.toBe(eventIdOf('rec-1', u));
  });
});

describe('RefIntents on a real repository and journal', () => {
  let dir: string;
  let gitDir: string;
  let pool: CatfilePool;
  let journal: FileJournal;
  let intents: RefIntents;
  let c1: string;
  const git = (...args: string[]) => execFileSync('git', [`--git-dir=${gitDir}`, ...args], { env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@x' } }).toString().trim();
  const context = { repository: { id: 'repo-1', owner: 'alice', name: 'demo' }, pusher: 'alice', requestId: 'req-1' };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'githost-intents-'));
    gitDir = path.join(dir, 'repo.git');
    execFileSync('git', ['init', '-q', '--bare', gitDir]);
    const tree = git('mktree', '--missing');
    c1 = git('commit-tree', tree, '-m', 'first');
    const logger = createLogger('test');
    pool = new CatfilePool();
    journal = new FileJournal(path.join(dir, 'journal'), { logger });
    intents = new RefIntents(path.join(dir, 'pending'), new PushEventRecorder(pool, journal, () => undefined, logger), logger);
  });

  afterAll(async () => {
    pool.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('when a record is prepared, then it is a 0600 file; when its ref moved and it is reconciled twice (a kill before removal), then the journal has the event under one id', async () => {
    const update = { ref: 'refs/heads/main', before: ZERO_OID, after: c1 };
    const intent = await intents.prepare(gitDir, context, [update]);
    expect((await stat(intent.file)).mode & 0o777).toBe(0o600);
    git('update-ref', 'refs/heads/main', c1, '');
    const copy = await readFile(intent.file, 'utf8');
    await intents.reconcile();
    await writeFile(intent.file, copy, { mode: 0o600 }); // as if killed before the record was removed
    await intents.reconcile();
    const events = await journal.pending();
    expect(events.map((e) => e.id)).toEqual([eventIdOf(intent.id, update), eventIdOf(intent.id, update)]);
    expect(events[0]!.payload).toMatchObject({ event: 'push', ref: 'refs/heads/main', before: ZERO_OID, after: c1, created: true, deleted: false, forced: false, sender: { username: 'alice' } });
    expect(await readdir(path.join(dir, 'pending'))).toEqual([]);
    await journal.removeMany(events.map((e) => e.id));
  });

  it('when a move was confirmed but its event not journaled (an UpdateRef answered, then killed) and the ref moved on, then reconciling journals the confirmed move', async () => {
    const tree = git('mktree', '--missing');
    const c2 = git('commit-tree', tree, '-p', c1, '-m', 'second');
    const update = { ref: 'refs/heads/confirmed', before: ZERO_OID, after: c1 };
    const intent = await intents.prepare(gitDir, context, [update]);
    git('update-ref', 'refs/heads/confirmed', c1, '');
    await intents.confirm(intent, [update]);
    git('update-ref', 'refs/heads/confirmed', c2, c1); // the next move, before this one's event joined the journal
    await intents.reconcile();
    const events = await journal.pending();
    expect(events.map((e) => [e.id, (e.payload as { before: string; after: string }).after])).toEqual([[eventIdOf(intent.id, update), c1]]);
    await journal.removeMany(events.map((e) => e.id));
  });

  it('when a repository\'s staged events are committed out of order, then they join the journal in the order they were staged', async () => {
    const recorder = new PushEventRecorder(pool, journal, () => undefined, createLogger('test'));
    const first = await recorder.stage(gitDir, context, [{ ref: 'refs/heads/o1', before: ZERO_OID, after: c1 }]);
    const second = await recorder.stage(gitDir, context, [{ ref: 'refs/heads/o2', before: ZERO_OID, after: c1 }]);
    const third = await recorder.stage(gitDir, context, [{ ref: 'refs/heads/o3', before: ZERO_OID, after: c1 }]);
    const secondJoined = second.commit();
    const thirdJoined = third.commit();
    await new Promise((r) => setTimeout(r, 50));
    expect(await journal.pending()).toEqual([]); // both wait for the first
    await first.discard();
    await Promise.all([secondJoined, thirdJoined]);
    expect((await journal.pending()).map((e) => (e.payload as { ref: string }).ref)).toEqual(['refs/heads/o2', 'refs/heads/o3']);
    await journal.removeMany((await journal.pending()).map((e) => e.id));
  });

  it('when a prepared change did not happen (the ref is elsewhere), then reconciling drops it and journals nothing', async () => {
    await intents.prepare(gitDir, context, [{ ref: 'refs/heads/main', before: c1, after: ZERO_OID }]);
    await intents.reconcile();
    expect(await journal.pending()).toEqual([]);
    expect(await readdir(path.join(dir, 'pending'))).toEqual([]);
  });
});
