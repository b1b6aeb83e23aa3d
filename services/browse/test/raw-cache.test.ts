import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { StorageServiceClient } from '@githost/protos';
import { API, startHarness, type Harness } from './support/harness.js';
import { BIG_FILE_BYTES } from './support/fixture.js';
import { gitBytes } from './support/git.js';

/** Counts browse's ReadBlob calls (each one a blob read in git-storage). */
let readBlobCalls = 0;
function countReadBlob(client: StorageServiceClient): StorageServiceClient {
  const counted = Object.create(client) as StorageServiceClient;
  const readBlob = client.ReadBlob.bind(client) as unknown as (...args: unknown[]) => unknown;
  counted.ReadBlob = ((...args: unknown[]) => {
    readBlobCalls++;
    return readBlob(...args);
  }) as unknown as StorageServiceClient['ReadBlob'];
  return counted;
}

// A quarter of it (the per-entry limit) is 100 KiB: README.md fits, big.txt (200 KiB) does not.
const CACHE_BYTES = 400 * 1024;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ wrapStorageClient: countReadBlob, cacheBytes: CACHE_BYTES });
});
afterAll(async () => {
  await h.stop();
});

const catBlob = (rev: string) => gitBytes(h.source, 'cat-file', 'blob', rev);

describe('raw from the object cache', () => {
  it('when a blob under the per-entry limit is read again, then git-storage is not asked and the bytes and headers are the same', async () => {
    const first = await h.get(`${API}/raw/main/README.md`);
    const calls = readBlobCalls;
    const again = await h.get(`${API}/raw/main/README.md`);
    expect(readBlobCalls).toBe(calls);
    expect(again.body.equals(await catBlob('refs/heads/main:README.md'))).toBe(true);
    const kept = ['content-type', 'content-length', 'etag', 'cache-control', 'x-content-type-options', 'content-security-policy'];
    expect(kept.map((name) => again.headers[name])).toEqual(kept.map((name) => first.headers[name]));
    expect(again.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('when many clients read a cold blob at once, then git-storage reads it once', async () => {
    const calls = readBlobCalls;
    const answers = await Promise.all(Array.from({ length: 8 }, () => h.get(`${API}/raw/main/zero/at-7999.bin`)));
    expect(readBlobCalls - calls).toBe(1);
    const bytes = await catBlob('refs/heads/main:zero/at-7999.bin');
    expect(answers.map((a) => [a.status, a.headers['content-type'], a.body.equals(bytes)])).toEqual(answers.map(() => [200, 'application/octet-stream', true]));
  });

  it('when a blob is over the per-entry limit, then every read streams it from git-storage, whole', async () => {
    const bytes = await catBlob('refs/heads/main:big.txt');
    for (let i = 0; i < 2; i++) {
      const calls = readBlobCalls;
      const res = await h.get(`${API}/raw/main/big.txt`);
      expect([res.status, res.headers['content-length'], res.body.equals(bytes)]).toEqual([200, String(BIG_FILE_BYTES), true]);
      // One ReadBlob finds it too large to keep, one streams it.
      expect(readBlobCalls - calls).toBe(2);
    }
  });

  it('when a cached blob is asked for with HEAD, then the headers come without a body', async () => {
    await h.get(`${API}/raw/main/README.md`);
    const res = await h.get(`${API}/raw/main/README.md`, { method: 'HEAD' });
    expect([res.status, res.headers['content-length'], res.body.length]).toEqual([200, String((await catBlob('refs/heads/main:README.md')).length), 0]);
  });
});
