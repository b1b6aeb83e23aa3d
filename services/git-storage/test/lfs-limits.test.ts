import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { encodeIdentity, type Identity } from '@githost/identity';
import { commitAll, createTestRepository, git, makeWorkdir, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

/** LFS object limits (docs/decisions/lfs.md "Limits"): LFS_MAX_OBJECT_BYTES and the repository quota. */

const ID = 'repo-lfs-limits';
const MAX_OBJECT = 64 * 1024;
// The empty repository's git directory takes a few KiB; the quota leaves room for one 60 KiB object, not two.
const QUOTA = 100 * 1024;
let s: TestStorage;

function headers(): Record<string, string> {
  const identity: Identity = {
    principal: { user_id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false },
    repo: { id: ID, owner: 'alice', name: 'demo', default_branch: 'main', private: true, shard: 'default', permission: 'write', owner_id: 'u-alice' },
    request_id: 'req-lfs-limits',
    issued_at: Date.now(),
  };
  return encodeIdentity(identity, s.secret);
}

const url = (rest: string) => `http://127.0.0.1:${s.httpPort}/alice/demo.git/info/lfs/${rest}`;
const object = (size: number) => {
  const content = randomBytes(size);
  return { content, oid: createHash('sha256').update(content).digest('hex'), size };
};

async function batchUpload(objects: { oid: string; size: number }[]) {
  const res = await fetch(url('objects/batch'), { method: 'POST', headers: { ...headers(), 'content-type': 'application/vnd.git-lfs+json' }, body: JSON.stringify({ operation: 'upload', objects }) });
  return (await res.json()) as { objects: { oid: string; error?: { code: number; message: string }; actions?: unknown }[] };
}

async function put(o: { oid: string; content: Buffer }) {
  const res = await fetch(url(`objects/${o.oid}`), { method: 'PUT', headers: headers(), body: o.content });
  return { status: res.status, body: (await res.json()) as { message: string } };
}

beforeAll(async () => {
  s = await startTestStorage({ lfsMaxObjectBytes: MAX_OBJECT, repositoryQuotaBytes: QUOTA });
  await createTestRepository(s, ID);
});

afterAll(async () => {
  await s?.stop();
});

describe('LFS limits', () => {
  it('when an object is over LFS_MAX_OBJECT_BYTES, then the batch gives it a 422 and its upload is refused with 413', async () => {
    const big = object(MAX_OBJECT + 1);
    const answer = await batchUpload([{ oid: big.oid, size: big.size }]);
    expect(answer.objects[0]!.error).toEqual({ code: 422, message: `The object is ${MAX_OBJECT + 1} bytes; the largest allowed is ${MAX_OBJECT}` });
    expect(await put(big)).toEqual({ status: 413, body: expect.objectContaining({ message: `The object is ${MAX_OBJECT + 1} bytes; the largest allowed is ${MAX_OBJECT}` }) });
  });

  it('when objects would take the repository past its quota, then the batch and the upload refuse the one that does not fit', async () => {
    const first = object(60 * 1024);
    const second = object(60 * 1024);
    const answer = await batchUpload([{ oid: first.oid, size: first.size }, { oid: second.oid, size: second.size }]);
    expect(answer.objects[0]!.actions).toBeDefined();
    expect(answer.objects[1]!.error).toEqual({ code: 413, message: `The repository is over its quota of ${QUOTA} bytes` });
    expect((await put(first)).status).toBe(200);
    expect(await put(second)).toEqual({ status: 413, body: expect.objectContaining({ message: `The repository is over its quota of ${QUOTA} bytes` }) });
    // Uploading what is already stored again takes no more room.
    expect((await put(first)).status).toBe(200);
  });

  it('when LFS objects fill most of the quota, then a git push that would fit without them is refused naming the quota', async () => {
    const work = await makeWorkdir();
    await writeFiles(work, { 'data.bin': randomBytes(50 * 1024) });
    await commitAll(work, 'fifty KiB');
    const signed = Object.entries(headers()).flatMap(([k, v]) => ['-c', `http.extraHeader=${k}: ${v}`]);
    const pushed = await git(work, ...signed, 'push', `http://127.0.0.1:${s.httpPort}/alice/demo.git`, 'HEAD:refs/heads/main').then(() => 'pushed', (err: Error) => err.message);
    expect(pushed).toMatch(/remote: error: push refused: the repository would take \d+\.\d\d MB, over its quota of 0\.10 MB/);
  });
});
