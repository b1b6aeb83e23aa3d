import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { StorageServiceClient } from '@githost/protos';
import { pushTo } from '@githost/git-storage/testing';
import { encodeIdentity } from '@githost/identity';
import { repoContext, seedRepository, startHarness, type Harness } from './support/harness.js';
import { rawGet as rawAnswer } from './support/raw-get.js';
import { git, treeEntriesOf } from './support/git.js';

// docs/decisions/big-pages.md#the-whole-tree-streamed: a big directory's whole answer streams, the bytes as before.
const REPO = 'browse-streamed-tree';
const API = '/api/repos/alice/big';
const big = { id: REPO, name: 'big', default_branch: 'main' };
const ENTRIES = 10_000;

let h: Harness;
let source: string;
/** Answers ReadTreeStream as a git-storage from before it does: UNIMPLEMENTED. */
let olderStorage = false;

function maybeOlder(client: StorageServiceClient): StorageServiceClient {
  const wrapped = Object.create(client) as StorageServiceClient;
  const open = (client.ReadTreeStream as unknown as (...args: unknown[]) => unknown).bind(client);
  (wrapped as unknown as Record<string, unknown>).ReadTreeStream = (...args: unknown[]) => {
    if (!olderStorage) return open(...args);
    const refused = new Readable({ objectMode: true, read() {} });
    process.nextTick(() => refused.destroy(Object.assign(new Error('12 UNIMPLEMENTED: ReadTreeStream'), { code: 12, details: 'ReadTreeStream' })));
    return Object.assign(refused, { cancel: () => undefined });
  };
  return wrapped;
}

/** `big/` with 10,000 files (names JSON must escape, two blobs of other sizes, a subdirectory), one commit per branch. */
function bigDirectory(): Buffer {
  const lines = ['blob', 'mark :1', 'data 3', 'ab', '', 'blob', 'mark :2', 'data 0', '', 'commit refs/heads/main', 'committer A <a@example.com> 1700000000 +0000', 'data 3', 'big'];
  for (let i = 0; i < ENTRIES - 1; i++) lines.push(`M 100644 :${1 + (i % 2)} big/${i % 7 === 0 ? 'ünï"q\\' : 'f'}${String(i).padStart(5, '0')}.txt`);
  lines.push('M 100644 :1 big/sub/inner.txt', 'M 100644 :1 file.txt', '');
  lines.push('commit refs/heads/other', 'committer A <a@example.com> 1700000001 +0000', 'data 6', 'other', 'from refs/heads/main', 'M 100644 :2 file.txt', '', 'done', '');
  return Buffer.from(lines.join('\n'));
}

/** The answer as the seed's serializer wrote it: JSON.stringify of every entry git lists. */
async function expected(ref: string, dir: string): Promise<string> {
  const commit = (await git(source, 'rev-parse', '--verify', '--end-of-options', ref)).trim();
  const entries = treeEntriesOf(await git(source, 'ls-tree', '--long', '-z', `${ref}:${dir}`), dir);
  return JSON.stringify({ ref, commit, path: dir, entries });
}

/** The answer as it came off the socket (support/raw-get.ts), asked with big's identity. */
function rawGet(target: string, method = 'GET'): Promise<{ head: string; chunks: number; body: Buffer }> {
  const identity = encodeIdentity({ principal: null, repo: repoContext(big), request_id: 'raw', issued_at: Date.now() }, h.storage.secret);
  return rawAnswer(h.port, identity, target, method);
}

beforeAll(async () => {
  h = await startHarness({ wrapStorageClient: maybeOlder });
  source = await seedRepository(h, REPO, bigDirectory());
}, 60_000);
afterAll(async () => {
  await h.stop();
  await rm(source, { recursive: true, force: true });
});

describe('the whole tree of a big directory, streamed', () => {
  it('when it is read cold, then it arrives in many chunks without Content-Length, its bytes JSON.stringify of every entry; warm, the same bytes whole', async () => {
    const want = await expected('main', 'big');
    const cold = await rawGet(`${API}/tree/main/big`);
    expect(cold.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(cold.head).not.toMatch(/\r\ncontent-length:/i);
    expect(cold.head).toMatch(/\r\netag: "/i);
    expect(cold.chunks).toBeGreaterThan(5);
    expect(cold.body.toString('utf8')).toBe(want);
    const warm = await h.get(`${API}/tree/main/big`, { repo: big });
    expect([warm.status, warm.headers['content-length'], warm.headers.etag]).toEqual([200, String(Buffer.byteLength(want)), /etag: (".*")/i.exec(cold.head)![1]]);
    expect(warm.body.toString('utf8')).toBe(want);
  });

  it('when a big directory is read by full commit id, then the one read that confirms the id is the one streamed', async () => {
    const commit = (await git(source, 'rev-parse', 'other')).trim();
    const res = await rawGet(`${API}/tree/${commit}/big`);
    expect(res.chunks).toBeGreaterThan(5);
    const want = (await expected('other', 'big')).replace('"ref":"other"', `"ref":"${commit}"`);
    expect(res.body.toString('utf8')).toBe(want);
  });

  it('when several read the same cold directory at once, then each gets the whole answer', async () => {
    await pushTo(h.storage, REPO, source, 'refs/heads/main:refs/heads/again');
    const want = (await expected('main', 'big')).replace('"ref":"main"', '"ref":"again"');
    const answers = await Promise.all([1, 2, 3].map(() => rawGet(`${API}/tree/again/big`)));
    for (const a of answers) expect(a.body.toString('utf8')).toBe(want);
  });

  it('when the path is missing or a file, then the spec\'s 404 or 400 comes whole, before any entry', async () => {
    const missing = await h.get(`${API}/tree/main/big/nope`, { repo: big });
    expect([missing.status, missing.json()]).toEqual([404, { error: 'Path not found: big/nope' }]);
    const file = await h.get(`${API}/tree/main/file.txt`, { repo: big });
    expect([file.status, file.json()]).toEqual([400, { error: 'Not a directory: file.txt' }]);
    const ref = await h.get(`${API}/tree/nope/big`, { repo: big });
    expect(ref.status).toBe(404);
  });

  it('when git-storage is from before ReadTreeStream (a rolling upgrade), then the tree is read whole with ReadTree, the same bytes', async () => {
    await pushTo(h.storage, REPO, source, 'refs/heads/main:refs/heads/older');
    olderStorage = true;
    try {
      const res = await rawGet(`${API}/tree/older/big`);
      expect(res.head).toMatch(/\r\ncontent-length:/i);
      expect(res.body.toString('utf8')).toBe((await expected('main', 'big')).replace('"ref":"main"', '"ref":"older"'));
      expect((await h.get(`${API}/tree/older/nope`, { repo: big })).status).toBe(404);
    } finally {
      olderStorage = false;
    }
  });

  it('when HEAD asks for a cold big directory, then the GET\'s validators and no body; with its ETag, 304', async () => {
    await pushTo(h.storage, REPO, source, 'refs/heads/main:refs/heads/head-only');
    const head = await rawGet(`${API}/tree/head-only/big`, 'HEAD');
    expect(head.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.body.length).toBe(0);
    const etag = /etag: (".*")/i.exec(head.head)![1]!;
    const again = await h.get(`${API}/tree/head-only/big`, { repo: big, headers: { 'if-none-match': etag } });
    expect([again.status, again.body.length]).toEqual([304, 0]);
    const get = await h.get(`${API}/tree/head-only/big`, { repo: big });
    expect(get.body.toString('utf8')).toBe((await expected('main', 'big')).replace('"ref":"main"', '"ref":"head-only"'));
  });
});
