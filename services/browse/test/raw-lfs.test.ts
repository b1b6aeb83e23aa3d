import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestRepository, pushTo } from '@githost/git-storage/testing';
import { API, startHarness, type Harness } from './support/harness.js';
import { git } from './support/git.js';

/** raw of a Git LFS pointer (docs/decisions/lfs.md#display), with the object cache and without it. */
const REPO = 'browse-lfs';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const pointerOf = (content: Buffer) => `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(content)}\nsize ${content.length}\n`;
// Larger than a gRPC message and than raw's 8000-byte sniff; a zero byte makes it binary.
const object = Buffer.concat([Buffer.from([0]), randomBytes(300_000)]);
const missing = randomBytes(100);

describe.each([
  ['with the object cache', 8 * 1024 * 1024],
  ['without the object cache (streamed)', 0],
])('raw of an LFS pointer %s', (_name, cacheBytes) => {
  let h: Harness;
  let work: string;
  const get = (p: string, headers: Record<string, string> = {}) => h.get(`${API}/raw/main/${p}`, { repo: { id: REPO }, headers });

  beforeAll(async () => {
    h = await startHarness({ cacheBytes });
    work = await mkdtemp(path.join(tmpdir(), 'browse-lfs-'));
    await git(work, 'init', '-q', '-b', 'main');
    await writeFile(path.join(work, 'stored.bin'), pointerOf(object));
    await writeFile(path.join(work, 'missing.bin'), pointerOf(missing));
    await writeFile(path.join(work, 'almost.txt'), pointerOf(object).replace('size', 'sizes'));
    await git(work, 'add', '-A');
    await git(work, 'commit', '-q', '-m', 'pointers');
    await createTestRepository(h.storage, REPO, 'main');
    await pushTo(h.storage, REPO, work, 'main');
    await h.storage.service.context.lfs.write(REPO, sha256(object), object.length, Readable.from([object]));
  }, 60_000);

  afterAll(async () => {
    await h?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('when the repository holds the object, then raw streams the object with its size, type and an ETag of its own, and a HEAD has no body', async () => {
    const res = await get('stored.bin');
    expect([res.status, res.headers['content-length'], res.headers['content-type'], res.headers['x-git-lfs'], res.body.equals(object)]).toEqual([200, String(object.length), 'application/octet-stream', 'stored', true]);
    const again = await get('stored.bin', { 'if-none-match': res.headers.etag as string });
    expect([again.status, again.headers.etag]).toEqual([304, res.headers.etag]);
    const head = await h.get(`${API}/raw/main/stored.bin`, { repo: { id: REPO }, method: 'HEAD' });
    expect([head.status, head.headers['content-length'], head.body.length]).toEqual([200, String(object.length), 0]);
  });

  it('when the repository lacks the object, then raw serves the pointer, marked missing, without a validator', async () => {
    const res = await get('missing.bin');
    expect([res.status, res.body.toString(), res.headers['x-git-lfs'], res.headers.etag, res.headers['cache-control']]).toEqual([200, pointerOf(missing), 'missing', undefined, 'no-cache']);
  });

  it('when the object belongs to another repository only, then it is not served here', async () => {
    await createTestRepository(h.storage, `${REPO}-other`, 'main');
    await pushTo(h.storage, `${REPO}-other`, work, 'main');
    const res = await h.get(`${API}/raw/main/stored.bin`, { repo: { id: `${REPO}-other` } });
    expect([res.status, res.body.toString(), res.headers['x-git-lfs']]).toEqual([200, pointerOf(object), 'missing']);
  });

  it('when a file only resembles a pointer, then it is an ordinary file', async () => {
    const res = await get('almost.txt');
    expect([res.status, res.body.toString(), res.headers['x-git-lfs']]).toEqual([200, pointerOf(object).replace('size', 'sizes'), undefined]);
  });
});
