import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createStorageRouter, singleShard, type StorageRouter } from '@githost/storage-router';
import { startTestStorage, type TestStorage } from '@githost/git-storage/testing';
import { createRefsWatch, type RefsWatch } from './index.js';

let s: TestStorage;
let router: StorageRouter;
const watches: RefsWatch[] = [];

const watch = (opts: Parameters<typeof createRefsWatch>[1] = {}): RefsWatch => {
  const w = createRefsWatch(router, { minBackoffMs: 20, maxBackoffMs: 50, ...opts });
  watches.push(w);
  return w;
};

const until = async (cond: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

beforeAll(async () => {
  s = await startTestStorage();
  router = createStorageRouter(singleShard(s.grpcAddress), s.secret);
});

afterEach(() => {
  for (const w of watches.splice(0)) w.close();
});

afterAll(async () => {
  router.close();
  await s.stop();
});

describe('refs watch', () => {
  it('when the stream is not ready yet, then there is no version; once ready there is one', async () => {
    const w = watch();
    expect(w.version('default', 'r1')).toBeUndefined();
    expect(await w.ready()).toBe(true);
    expect(w.version('default', 'r1')).toEqual(expect.any(String));
    // An empty shard name is the default shard, as records made before shards carry it.
    expect(w.version('', 'r1')).toBe(w.version('default', 'r1'));
    expect(w.version('elsewhere', 'r1')).toBeUndefined();
  });

  it('when git-storage reports a change, then that repository version changes before the notify returns, others keep theirs', async () => {
    const w = watch();
    await w.ready();
    const seen: Array<string | undefined> = [];
    w.onChange((_shard, repo) => seen.push(repo));
    const [a, b] = [w.version('default', 'a'), w.version('default', 'b')];
    await s.service.context.watchers.notify('a');
    expect(w.version('default', 'a')).not.toBe(a);
    expect(w.version('default', 'b')).toBe(b);
    expect(seen).toEqual(['a']);
    const a2 = w.version('default', 'a');
    await s.service.context.watchers.notify('a');
    expect(w.version('default', 'a')).not.toBe(a2);
    expect(w.version('default', 'a')).not.toBe(a);
  });

  it('when the stream breaks, then versions are undefined until it reconnects, and every version is new after', async () => {
    const w = watch();
    await w.ready();
    const before = w.version('default', 'x');
    s.service.context.watchers.close(); // cuts every watcher off, as a missed ack would
    await until(() => w.version('default', 'x') === undefined);
    await until(() => w.live('default'));
    expect(w.version('default', 'x')).toEqual(expect.any(String));
    expect(w.version('default', 'x')).not.toBe(before);
  });

  it('when too many repositories changed in one epoch, then a new epoch starts (every version changes)', async () => {
    const w = watch({ maxTrackedRepositories: 2 });
    await w.ready();
    await s.service.context.watchers.notify('p');
    await s.service.context.watchers.notify('q');
    const other = w.version('default', 'untouched');
    await s.service.context.watchers.notify('r');
    expect(w.version('default', 'untouched')).not.toBe(other);
  });
});

describe('refs watch on a silent connection', () => {
  let quiet: TestStorage;
  let quietRouter: StorageRouter;
  beforeAll(async () => {
    // git-storage's heartbeats far apart: the watch hears nothing after `ready`.
    quiet = await startTestStorage({ refsWatchHeartbeatMs: 60_000 });
    quietRouter = createStorageRouter(singleShard(quiet.grpcAddress), quiet.secret);
  });
  afterAll(async () => {
    quietRouter.close();
    await quiet.stop();
  });

  it('when nothing is heard for staleAfterMs, then versions are undefined (the connection may be dead) and the watch goes down', async () => {
    // Reconnects far off, so the watch stays down while the test looks.
    const w = createRefsWatch(quietRouter, { minBackoffMs: 60_000, maxBackoffMs: 60_000, staleAfterMs: 200 });
    watches.push(w);
    let downs = 0;
    w.onChange((_shard, repo) => {
      if (repo === undefined && !w.live('default')) downs++;
    });
    await w.ready();
    expect(w.version('default', 'r')).toEqual(expect.any(String));
    await until(() => downs > 0);
    expect(w.version('default', 'r')).toBeUndefined();
  });

  it('when heartbeats keep coming, then the watch stays live past staleAfterMs', async () => {
    const beating = await startTestStorage({ refsWatchHeartbeatMs: 20 });
    const r = createStorageRouter(singleShard(beating.grpcAddress), beating.secret);
    const w = createRefsWatch(r, { staleAfterMs: 200 });
    try {
      await w.ready();
      const v = w.version('default', 'r');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(w.version('default', 'r')).toBe(v);
    } finally {
      w.close();
      r.close();
      await beating.stop();
    }
  });
});
