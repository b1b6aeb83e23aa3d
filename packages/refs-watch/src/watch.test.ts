import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createStorageRouter, type StorageRouter } from '@githost/storage-router';
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
  router = createStorageRouter(new Map([['default', s.grpcAddress]]));
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
