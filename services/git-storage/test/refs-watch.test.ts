import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { encodeIdentity } from '@githost/identity';
import { callUnary, grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, pushTo, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

const ID = 'repo-watch';
const ACK_TIMEOUT_MS = 300;
const HEARTBEAT_MS = 50;
let s: TestStorage;

type Stream = grpc.ClientDuplexStream<storage.WatchRefsRequest, storage.RefsChanged__Output>;

interface TestWatcher {
  stream: Stream;
  changes: storage.RefsChanged__Output[];
  heartbeats(): number;
  /** Resolves with the next change (after `ready`). */
  next(): Promise<storage.RefsChanged__Output>;
  ack(seq: number): void;
  failed: Promise<grpc.ServiceError>;
}

/** A raw WatchRefs stream that acks only when told to; resolves once `ready` arrived. */
async function watcher(): Promise<TestWatcher> {
  const stream = s.client.WatchRefs();
  const changes: storage.RefsChanged__Output[] = [];
  let heartbeats = 0;
  let wake: (() => void) | undefined;
  const failed = new Promise<grpc.ServiceError>((resolve) => stream.on('error', resolve));
  await new Promise<void>((resolve) => {
    stream.on('data', (m: storage.RefsChanged__Output) => {
      if (m.ready) return resolve();
      if (m.heartbeat) return void heartbeats++;
      changes.push(m);
      wake?.();
    });
  });
  let taken = 0;
  return {
    stream,
    heartbeats: () => heartbeats,
    changes,
    failed,
    async next() {
      while (changes.length <= taken) await new Promise<void>((r) => (wake = r));
      return changes[taken++]!;
    },
    ack: (seq) => stream.write({ ack_seq: seq }),
  };
}

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setTimeout(r, 50));
  return done;
};

const context = { owner: 'alice', name: 'demo', pusher: 'alice', request_id: 'req-watch' };

beforeAll(async () => {
  s = await startTestStorage({ refsWatchAckTimeoutMs: ACK_TIMEOUT_MS, refsWatchHeartbeatMs: HEARTBEAT_MS });
  await createTestRepository(s, ID);
  const w = await makeWorkdir();
  await writeFiles(w, { 'a.txt': 'a\n' });
  await commitAll(w, 'a');
  await pushTo(s, ID, w, 'main');
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

describe('WatchRefs', () => {
  it('when nobody watches, then notify returns at once', async () => {
    expect(s.service.context.watchers.size).toBe(0);
    await s.service.context.watchers.notify(ID);
  });

  it('when a watcher is connected, then it hears heartbeats that need no ack and cost it nothing', async () => {
    const w = await watcher();
    while (w.heartbeats() < 2) await new Promise((r) => setTimeout(r, HEARTBEAT_MS));
    expect(s.service.context.watchers.size).toBe(1);
    expect(w.changes).toEqual([]);
    w.stream.cancel();
    while (s.service.context.watchers.size > 0) await new Promise((r) => setTimeout(r, 10));
  });

  it('when a change is notified, then notify waits for every watcher to ack it', async () => {
    const a = await watcher();
    const b = await watcher();
    const notified = s.service.context.watchers.notify(ID);
    const [ca, cb] = await Promise.all([a.next(), b.next()]);
    expect(ca).toMatchObject({ ready: false, repository_id: ID });
    a.ack(ca.seq);
    expect(await settled(notified)).toBe(false);
    b.ack(cb.seq);
    await notified;
    a.stream.cancel();
    b.stream.cancel();
  });

  it('when a repository\'s facts change is announced, then every watcher hears it flagged `facts` and AnnounceChange returns only after the ack; a ref change is not flagged; a bad id is refused', async () => {
    const w = await watcher();
    const announced = callUnary(s.client, s.client.AnnounceChange, { repository_id: ID });
    const change = await w.next();
    expect(change).toMatchObject({ ready: false, repository_id: ID, facts: true });
    expect(await settled(announced)).toBe(false);
    w.ack(change.seq);
    await announced;
    const notified = s.service.context.watchers.notify(ID);
    const refs = await w.next();
    expect(refs).toMatchObject({ repository_id: ID, facts: false });
    w.ack(refs.seq);
    await notified;
    await expect(callUnary(s.client, s.client.AnnounceChange, { repository_id: '../x' })).rejects.toMatchObject({ kind: 'validation' });
    w.stream.cancel();
  });

  it('when a watcher does not ack in time, then it is cut off with an error and notify returns', async () => {
    const silent = await watcher();
    await s.service.context.watchers.notify(ID);
    expect(s.service.context.watchers.size).toBe(0); // cut off before notify returned
    expect((await silent.failed).code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(s.service.context.watchers.size).toBe(0);
  });

  it('when UpdateRef moves a ref, then it returns only after the watcher acked the change', async () => {
    const w = await watcher();
    const [main] = (await callUnary(s.client, s.client.ListRefs, { repository_id: ID, prefixes: ['refs/heads/main'] })).refs;
    const moved = callUnary(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/other', new_oid: main!.target, old_oid: '0'.repeat(40), context });
    const change = await w.next();
    expect(change.repository_id).toBe(ID);
    // The refs were read before (ListRefs), so the change names the ref it moved, with its value.
    expect(change.refs_known).toBe(true);
    expect(change.refs).toEqual([{ name: 'refs/heads/other', target: main!.target, peeled: '' }]);
    expect(await settled(moved)).toBe(false);
    w.ack(change.seq);
    await moved;
    // A deletion: the ref with an empty target.
    const deleted = callUnary(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/other', new_oid: '0'.repeat(40), old_oid: main!.target, context });
    const gone = await w.next();
    expect([gone.refs_known, gone.refs]).toEqual([true, [{ name: 'refs/heads/other', target: '', peeled: '' }]]);
    w.ack(gone.seq);
    await deleted;
    w.stream.cancel();
  });

  it('when a watcher never acks, then UpdateRef returns only once that watcher was cut off', async () => {
    const silent = await watcher();
    const [main] = (await callUnary(s.client, s.client.ListRefs, { repository_id: ID, prefixes: ['refs/heads/main'] })).refs;
    await callUnary(s.client, s.client.UpdateRef, { repository_id: ID, ref: 'refs/heads/third', new_oid: main!.target, old_oid: '0'.repeat(40), context });
    expect(s.service.context.watchers.size).toBe(0);
    await silent.failed;
    expect(silent.changes.map((c) => c.repository_id)).toEqual([ID]);
  });

  it('when a push over smart HTTP updates a ref, then git hears back only after the watcher acked the change', async () => {
    const w = await watcher();
    const work = await makeWorkdir();
    await git(work, 'fetch', '-q', `file://${s.repoPath(ID)}`, 'refs/heads/main');
    await git(work, 'checkout', '-q', '-B', 'main', 'FETCH_HEAD');
    await writeFiles(work, { 'b.txt': 'b\n' });
    await commitAll(work, 'b');
    const identity = encodeIdentity(
      { principal: { user_id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false }, repo: { id: ID, owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission: 'write', owner_id: 'u-alice' }, request_id: 'req-push', issued_at: Date.now() },
      s.secret,
    );
    const headers = Object.entries(identity).flatMap(([k, v]) => ['-c', `http.extraHeader=${k}: ${v}`]);
    await callUnary(s.client, s.client.ListRefs, { repository_id: ID, prefixes: ['refs/heads/'] });
    const pushed = git(work, ...headers, 'push', '-q', `http://127.0.0.1:${s.httpPort}/alice/demo.git`, 'HEAD:refs/heads/main');
    const change = await w.next();
    expect(change.repository_id).toBe(ID);
    // git's report named what it changed: the watcher hears the ref and its new value.
    const head = (await git(work, 'rev-parse', 'HEAD')).trim();
    expect([change.refs_known, change.refs]).toEqual([true, [{ name: 'refs/heads/main', target: head, peeled: '' }]]);
    expect(await settled(pushed)).toBe(false);
    w.ack(change.seq);
    await pushed;
    w.stream.cancel();
    // A watcher that never acks: git hears back only once it was cut off.
    const silent = await watcher();
    await writeFiles(work, { 'c.txt': 'c\n' });
    await commitAll(work, 'c');
    await git(work, ...headers, 'push', '-q', `http://127.0.0.1:${s.httpPort}/alice/demo.git`, 'HEAD:refs/heads/main');
    expect(s.service.context.watchers.size).toBe(0);
    await silent.failed;
    expect(silent.changes.map((c) => c.repository_id)).toEqual([ID]);
  });

  it('when the default branch changes, then the watcher hears that no ref moved and the refs cache keeps its table', async () => {
    const gitDir = s.repoPath(ID);
    const before = await s.service.context.refs.list(gitDir);
    const w = await watcher();
    const set = callUnary(s.client, s.client.SetDefaultBranch, { repository_id: ID, branch: 'third' });
    const change = await w.next();
    // Refs known, none moved: a reader holding the refs keeps them (browse moves its snapshot's version).
    expect([change.repository_id, change.refs_known, change.refs, change.facts]).toEqual([ID, true, [], false]);
    expect(await settled(set)).toBe(false);
    w.ack(change.seq);
    await set;
    // The same table, not a refill of every ref (HEAD is not in it).
    expect(await s.service.context.refs.list(gitDir)).toBe(before);
    await callUnary(s.client, s.client.SetDefaultBranch, { repository_id: ID, branch: 'main' });
    w.stream.cancel();
  });

  it('when a repository is removed, then RemoveRepository returns only after the watcher acked the change', async () => {
    await createTestRepository(s, 'repo-watch-gone');
    const w = await watcher();
    const removed = callUnary(s.client, s.client.RemoveRepository, { repository_id: 'repo-watch-gone' });
    const change = await w.next();
    expect(change.repository_id).toBe('repo-watch-gone');
    expect(change.refs_known).toBe(false); // every ref is gone: the watcher drops what it holds
    expect(await settled(removed)).toBe(false);
    w.ack(change.seq);
    await removed;
    w.stream.cancel();
    const silent = await watcher();
    await callUnary(s.client, s.client.RemoveRepository, { repository_id: 'repo-watch-gone' });
    expect(s.service.context.watchers.size).toBe(0);
    await silent.failed;
    expect(silent.changes.map((c) => c.repository_id)).toEqual(['repo-watch-gone']);
  });
});
