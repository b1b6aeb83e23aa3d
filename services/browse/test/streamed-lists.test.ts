import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { pushTo } from '@githost/git-storage/testing';
import { encodeIdentity } from '@githost/identity';
import { RECORDS_PER_CHUNK } from '../src/domain/ref-lists.js';
import { repoContext, seedRepository, startHarness, type Harness } from './support/harness.js';
import { rawGet as rawAnswer } from './support/raw-get.js';
import { git } from './support/git.js';

// docs/decisions/ref-pages.md#the-whole-list-streamed: the whole lists stream, the bytes as before.
const REPO = 'browse-streamed-lists';
const API = '/api/repos/alice/streamed';
const streamed = { id: REPO, name: 'streamed', default_branch: 'main' };
const BRANCHES = 3 * RECORDS_PER_CHUNK + 17;
const TAGS = 2 * RECORDS_PER_CHUNK + 5;

let h: Harness;
let source: string;

/** Two commits; branches and tags at either, every third tag annotated, names JSON must escape. */
function manyRefs(): Buffer {
  const lines = ['commit refs/heads/main', 'mark :1', 'committer A <a@example.com> 1700000000 +0000', 'data 2', 'c', 'M 644 inline f', 'data 2', 'x', ''];
  lines.push('commit refs/heads/main', 'mark :2', 'committer A <a@example.com> 1700000001 +0000', 'data 2', 'd', 'from :1', 'M 644 inline f', 'data 2', 'y', '');
  for (let i = 0; i < BRANCHES - 1; i++) lines.push(`reset refs/heads/${i % 5 === 0 ? 'ünï"q' : 'feature'}/${String(i).padStart(4, '0')}`, `from :${1 + (i % 2)}`, '');
  for (let i = 0; i < TAGS; i++) {
    const name = `v1.${String(i).padStart(4, '0')}`;
    if (i % 3 === 0) lines.push(`tag ${name}`, `from :${1 + (i % 2)}`, 'tagger A <a@example.com> 1700000000 +0000', 'data 2', 't', '');
    else lines.push(`reset refs/tags/${name}`, `from :${1 + (i % 2)}`, '');
  }
  lines.push('done');
  return Buffer.from(lines.join('\n') + '\n');
}

/** The answers as the seed's serializer wrote them before: JSON.stringify of the whole list from git's own listing. */
async function expected(): Promise<{ branches: string; tags: string }> {
  const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const rows = async (prefix: string, format: string) =>
    (await git(source, 'for-each-ref', `--format=${format}`, prefix))
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t'))
      .sort((a, b) => byBytes(a[0]!, b[0]!));
  const branches = (await rows('refs/heads/', '%(refname:lstrip=2)\t%(objectname)')).map(([name, sha]) => ({ name, sha, isDefault: name === 'main' }));
  const tags = (await rows('refs/tags/', '%(refname:lstrip=2)\t%(objectname)\t%(*objectname)')).map(([name, target, peeled]) => (peeled ? { name, sha: peeled, tag_sha: target } : { name, sha: target }));
  return { branches: JSON.stringify({ branches, default_branch: 'main' }), tags: JSON.stringify({ tags }) };
}

/** The answer as it came off the socket (support/raw-get.ts), asked with streamed's identity. */
function rawGet(target: string, method = 'GET'): Promise<{ head: string; chunks: number }> {
  const identity = encodeIdentity({ principal: null, repo: repoContext(streamed), request_id: 'raw', issued_at: Date.now() }, h.storage.secret);
  return rawAnswer(h.port, identity, target, method);
}

beforeAll(async () => {
  h = await startHarness();
  source = await seedRepository(h, REPO, manyRefs(), ['refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*']);
}, 60_000);
afterAll(async () => {
  await h.stop();
  await rm(source, { recursive: true, force: true });
});

describe('the whole branch and tag lists, streamed', () => {
  it('when a list is longer than one piece, then its bytes are those JSON.stringify gave for the whole list', async () => {
    const want = await expected();
    const [branches, tags] = [await h.get(`${API}/branches`, { repo: streamed }), await h.get(`${API}/tags`, { repo: streamed })];
    expect([branches.status, tags.status]).toEqual([200, 200]);
    expect(branches.body.toString('utf8')).toBe(want.branches);
    expect(tags.body.toString('utf8')).toBe(want.tags);
  });

  it('when a list is longer than one piece, then it is sent in chunks as it is built, with no Content-Length', async () => {
    for (const [list, count] of [['branches', BRANCHES], ['tags', TAGS]] as const) {
      const { head, chunks } = await rawGet(`${API}/${list}`);
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      expect(head).toMatch(/\r\ntransfer-encoding: chunked/i);
      expect(head).not.toMatch(/\r\ncontent-length:/i);
      expect(chunks).toBeGreaterThanOrEqual(Math.ceil(count / RECORDS_PER_CHUNK));
    }
  });

  it('when the list is asked again with its ETag, then 304; when a ref moved, then a 200 with another ETag', async () => {
    const first = await h.get(`${API}/branches`, { repo: streamed });
    const again = await h.get(`${API}/branches`, { repo: streamed, headers: { 'if-none-match': String(first.headers.etag) } });
    expect([again.status, again.headers.etag, again.body.length]).toEqual([304, first.headers.etag, 0]);
    const tags = await h.get(`${API}/tags`, { repo: streamed });
    expect((await h.get(`${API}/tags`, { repo: streamed, headers: { 'if-none-match': String(tags.headers.etag) } })).status).toBe(304);

    await git(source, 'update-ref', 'refs/heads/feature/0001', 'refs/heads/main~1');
    await pushTo(h.storage, REPO, source, '+refs/heads/*:refs/heads/*');
    const moved = await h.get(`${API}/branches`, { repo: streamed, headers: { 'if-none-match': String(first.headers.etag) } });
    expect(moved.status).toBe(200);
    expect(moved.headers.etag).not.toBe(first.headers.etag);
    expect(moved.body.toString('utf8')).toBe((await expected()).branches);
    // Tags did not move: their validator stands.
    expect((await h.get(`${API}/tags`, { repo: streamed, headers: { 'if-none-match': String(tags.headers.etag) } })).status).toBe(304);
  });

  it('when the same list is read by another default branch, then another ETag (isDefault differs)', async () => {
    const main = await h.get(`${API}/branches`, { repo: streamed });
    const other = await h.get(`${API}/branches`, { repo: { ...streamed, default_branch: 'feature/0001' } });
    expect(other.headers.etag).not.toBe(main.headers.etag);
  });

  it('when HEAD asks for a streamed list, then the headers of the GET and no body', async () => {
    const get = await h.get(`${API}/branches`, { repo: streamed });
    const head = await h.get(`${API}/branches`, { repo: streamed, method: 'HEAD' });
    expect([head.status, head.headers.etag, head.headers['content-type'], head.headers['content-length'], head.body.length]).toEqual([200, get.headers.etag, 'application/json; charset=utf-8', undefined, 0]);
  });

  it('when a list fits one piece, then it is sent whole with its Content-Length, as before', async () => {
    const res = await h.get('/api/repos/alice/fixture/branches');
    expect([res.status, res.headers['content-length'], res.headers['transfer-encoding']]).toEqual([200, String(res.body.length), undefined]);
  });
});
