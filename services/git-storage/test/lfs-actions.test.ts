import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { encodeIdentity } from '@githost/identity';
import { createTestRepository, startTestStorage, writerIdentity, type TestStorage } from '../src/testing.js';

/** What a batch offers an upload (docs/decisions/lfs.md#throughput): the upload and its verify. */

const ID = 'repo-lfs-actions';
const LFS_TYPE = 'application/vnd.git-lfs+json';
let s: TestStorage;

/** alice, a writer, on the private alice/demo (testing.ts' writer, under this test's name). */
function headers(): Record<string, string> {
  const identity = writerIdentity(ID);
  return encodeIdentity({ ...identity, repo: { ...identity.repo!, name: 'demo', private: true } }, s.secret);
}

const url = (rest: string) => `http://127.0.0.1:${s.httpPort}/alice/demo.git/info/lfs/${rest}`;

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, ID);
});

afterAll(async () => {
  await s?.stop();
});

describe('LFS upload actions', () => {
  it('when a batch asks to upload, then each object gets an upload and a verify action; the verify is 404 before the upload and 200 after it', async () => {
    const content = randomBytes(100_000);
    const oid = createHash('sha256').update(content).digest('hex');
    const res = await fetch(url('objects/batch'), { method: 'POST', headers: { ...headers(), 'content-type': LFS_TYPE }, body: JSON.stringify({ operation: 'upload', objects: [{ oid, size: content.length }] }) });
    const answer = (await res.json()) as { objects: Array<{ oid: string; actions: Record<string, { href: string }> }> };
    expect([res.status, answer.objects.map((o) => [o.oid, Object.keys(o.actions)])]).toEqual([200, [[oid, ['upload', 'verify']]]]);
    expect(answer.objects[0]!.actions.upload!.href).toMatch(new RegExp(`/alice/demo\\.git/info/lfs/objects/${oid}$`));

    expect(answer.objects[0]!.actions.verify!.href).toMatch(new RegExp(`/alice/demo\\.git/info/lfs/objects/${oid}/verify$`));
    const verify = () => fetch(url(`objects/${oid}/verify`), { method: 'POST', headers: { ...headers(), 'content-type': LFS_TYPE }, body: JSON.stringify({ oid, size: content.length }) }).then((r) => r.status);
    expect(await verify()).toBe(404);
    const put = await fetch(url(`objects/${oid}`), { method: 'PUT', headers: headers(), body: content });
    expect(put.status).toBe(200);
    expect(await verify()).toBe(200);
  });
});
