import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createStorageRouter, singleShard, type StorageRouter } from '@githost/storage-router';
import { startTestStorage, type TestStorage } from '@githost/git-storage/testing';
import { announceChange, announceEverywhere, createRefsWatch, type RefsWatch } from './index.js';

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

  it('when git-storage names the refs a change moved, then listeners get them with the versions before and after; without them, nothing', async () => {
    const w = watch();
    await w.ready();
    const heard: Array<Parameters<Parameters<RefsWatch['onChange']>[0]>> = [];
    w.onChange((...args) => heard.push(args));
    const before = w.version('default', 'a')!;
    const refs = [{ name: 'refs/heads/main', target: '1'.repeat(40), peeled: '' }, { name: 'refs/heads/gone', target: '', peeled: '' }];
    await s.service.context.watchers.notify('a', { refs });
    const after = w.version('default', 'a')!;
    expect(after).not.toBe(before);
    expect(heard).toEqual([['default', 'a', { before, after, refs }]]);
    await s.service.context.watchers.notify('a');
    expect(heard[1]).toEqual(['default', 'a', undefined]);
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

describe('facts version (AnnounceChange)', () => {
  it('when a repository\'s facts are announced, then its facts version changes before the call returns, its refs version and every listener stay as they were', async () => {
    const w = watch();
    await w.ready();
    const seen: Array<string | undefined> = [];
    w.onChange((_shard, repo) => seen.push(repo));
    const before = { refs: w.version('default', 'a'), facts: w.factsVersion('default', 'a'), other: w.factsVersion('default', 'b') };
    expect(before.facts).toEqual(expect.any(String));
    await announceChange(router, 'default', 'a');
    expect(w.factsVersion('default', 'a')).not.toBe(before.facts);
    expect(w.factsVersion('default', 'b')).toBe(before.other);
    // Browse's ref caches are not dropped for a merge request comment.
    expect(w.version('default', 'a')).toBe(before.refs);
    expect(seen).toEqual([]);
    const announced = w.factsVersion('default', 'a');
    await announceChange(router, 'default', 'a');
    expect(w.factsVersion('default', 'a')).not.toBe(announced);
  });

  it('when a change of every repository is announced (an account deleted), then every facts version of the shard moves and no refs version does', async () => {
    const w = watch();
    await w.ready();
    const before = ['g', 'h'].map((id) => [w.factsVersion('default', id), w.version('default', id)]);
    await announceEverywhere(router);
    const after = ['g', 'h'].map((id) => [w.factsVersion('default', id), w.version('default', id)]);
    for (const [i, [facts, refs]] of after.entries()) {
      expect(facts).toEqual(expect.any(String));
      expect(facts).not.toBe(before[i]![0]);
      expect(refs).toBe(before[i]![1]);
    }
  });

  it('when refs change, then the facts version stays (each counter moves on its own)', async () => {
    const w = watch();
    await w.ready();
    const facts = w.factsVersion('default', 'c');
    const refs = w.version('default', 'c');
    await s.service.context.watchers.notify('c');
    expect(w.version('default', 'c')).not.toBe(refs);
    expect(w.factsVersion('default', 'c')).toBe(facts);
  });

  it('when the stream breaks, then facts versions are undefined too, and new after it is back', async () => {
    const w = watch();
    await w.ready();
    const before = w.factsVersion('default', 'd');
    s.service.context.watchers.close();
    await until(() => w.factsVersion('default', 'd') === undefined);
    await until(() => w.live('default'));
    expect(w.factsVersion('default', 'd')).toEqual(expect.any(String));
    expect(w.factsVersion('default', 'd')).not.toBe(before);
  });

  it('when a watcher does not ack an announcement, then it is cut off and the announcement returns: no stale facts version survives', async () => {
    const w = watch({ minBackoffMs: 60_000, maxBackoffMs: 60_000 });
    await w.ready();
    // A raw watcher that never acks, beside the live one: git-storage cuts it off after its ack timeout.
    const silent = router.client('default').WatchRefs();
    silent.on('error', () => {});
    silent.on('data', () => {});
    await until(() => s.service.context.watchers.size >= 2);
    const before = w.factsVersion('default', 'e');
    await announceChange(router, 'default', 'e');
    expect(w.factsVersion('default', 'e')).not.toBe(before);
    expect(w.factsVersion('default', 'e')).toEqual(expect.any(String));
    await until(() => s.service.context.watchers.size === 1);
    silent.cancel();
  });

  it('when git-storage cannot be reached, then announcing gives up after retryForMs without throwing and logs it', async () => {
    const nowhere = createStorageRouter(singleShard('127.0.0.1:1'), s.secret);
    const errors: unknown[] = [];
    const logger = { error: (o: unknown) => errors.push(o) } as unknown as NonNullable<Parameters<typeof announceChange>[3]>['logger'];
    try {
      await expect(announceChange(nowhere, 'default', 'f', { retryForMs: 300, logger })).resolves.toBeUndefined();
      expect(errors).toHaveLength(1);
    } finally {
      nowhere.close();
    }
  });

  it('when git-storage is out of reach past the writer wait and then back, then the announcement still reaches the watchers (tried again in the background)', async () => {
    const w = watch();
    await w.ready();
    const before = w.factsVersion('default', 'parted');
    const nowhere = createStorageRouter(singleShard('127.0.0.1:1'), s.secret);
    let parted = true;
    const clients = { client: (shard: string) => (parted ? nowhere : router).client(shard) };
    const logged: string[] = [];
    const logger = { error: (_o: unknown, m: string) => logged.push(m), info: (_o: unknown, m: string) => logged.push(m) } as unknown as NonNullable<Parameters<typeof announceChange>[3]>['logger'];
    try {
      await announceChange(clients, 'default', 'parted', { retryForMs: 200, logger });
      expect(w.factsVersion('default', 'parted')).toBe(before);
      parted = false;
      await until(() => w.factsVersion('default', 'parted') !== before, 10_000);
      expect(w.factsVersion('default', 'parted')).toEqual(expect.any(String));
      await until(() => logged.length === 2);
      expect(logged).toEqual(['could not announce a repository change to git-storage watchers', 'announced a repository change to git-storage watchers after retrying']);
    } finally {
      nowhere.close();
    }
  });

  it('when the repository id is not one, then git-storage refuses it and nothing is retried', async () => {
    const errors: unknown[] = [];
    const logger = { error: (o: unknown) => errors.push(o) } as unknown as NonNullable<Parameters<typeof announceChange>[3]>['logger'];
    // Retried, it would outlast the test: a refusal is final.
    await announceChange(router, 'default', '../x', { logger, retryForMs: 600_000 });
    expect(errors).toEqual([expect.objectContaining({ repository_id: '../x', err: expect.objectContaining({ kind: 'validation' }) })]);
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
