import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { encodeIdentity, signLfsActionGrant, type LfsActionGrant } from '@githost/identity';
import { createTestRepository, startTestStorage, writerIdentity, type TestStorage } from '../src/testing.js';

/**
 * The shard's public LFS listener (docs/decisions/lfs.md#direct-transfers): a batch points
 * signed-in callers' object actions at LFS_DIRECT_URL, and that listener admits exactly what each
 * action's grant covers, and nothing else.
 */

const ID = 'repo-lfs-direct';
const OTHER = 'repo-lfs-direct-other';
const LFS_TYPE = 'application/vnd.git-lfs+json';
/** The direct URL's path: a shard behind an Ingress path of its own. */
const PREFIX = '/shards/default';
let s: TestStorage;

const oidOf = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** alice, a writer, on alice/demo (the gateway's signed identity, for the batch on the internal port). */
function identityHeaders(): Record<string, string> {
  const identity = writerIdentity(ID);
  return encodeIdentity({ ...identity, repo: { ...identity.repo!, name: 'demo', private: true } }, s.secret);
}
const direct = (rest: string) => `${s.lfsDirectUrl}/alice/demo.git/info/lfs/${rest}`;
const principal = writerIdentity(ID).principal!;
function grant(over: Partial<LfsActionGrant>, secret = s.secret): Record<string, string> {
  const g: LfsActionGrant = { principal, repository: 'alice/demo', repository_id: ID, oid: null, operation: 'upload', expires_at: Date.now() + 60_000, ...over };
  return { Authorization: `RemoteAuth ${signLfsActionGrant(g, secret)}` };
}
const temporaries = () => readdir(path.join(s.dataDir, 'lfs', 'tmp'));
const stored = (id: string, oid: string) => s.service.context.lfs.size(id, oid);

async function batch(operation: 'upload' | 'download', objects: Array<{ oid: string; size: number }>) {
  const res = await fetch(`http://127.0.0.1:${s.httpPort}/alice/demo.git/info/lfs/objects/batch`, {
    method: 'POST',
    headers: { ...identityHeaders(), 'content-type': LFS_TYPE },
    body: JSON.stringify({ operation, objects }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { objects: Array<{ oid: string; actions: Record<string, { href: string; header: Record<string, string> }> }> }).objects[0]!;
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** What a refusal looks like to git-lfs: the status, its media type and `{message, request_id}`. */
async function refusal(res: Response) {
  const body = (await res.json()) as { message?: unknown; request_id?: unknown };
  return [res.status, res.headers.get('content-type'), typeof body.message, typeof body.request_id];
}

beforeAll(async () => {
  s = await startTestStorage({ lfsDirectPath: PREFIX });
  await createTestRepository(s, ID);
  await createTestRepository(s, OTHER);
});

afterAll(async () => {
  await s?.stop();
});

describe('direct LFS transfers', () => {
  it('when a batch is answered, then the actions point at the direct URL with a grant, the upload, verify and download work there, and the direct byte counter moves', async () => {
    const content = randomBytes(300_000);
    const oid = oidOf(content);
    const upload = await batch('upload', [{ oid, size: content.length }]);
    expect(upload.actions.upload!.href).toBe(direct(`objects/${oid}`));
    expect(upload.actions.verify!.href).toBe(direct(`objects/${oid}/verify`));
    expect(upload.actions.upload!.header.Authorization).toMatch(/^RemoteAuth /);
    const uploadedBefore = await metric('githost_git_storage_lfs_direct_bytes_total', 'direction="upload"');

    const put = await fetch(upload.actions.upload!.href, { method: 'PUT', headers: upload.actions.upload!.header, body: content });
    expect([put.status, put.headers.get('content-type'), await put.json()]).toEqual([200, LFS_TYPE, {}]);
    const verify = await fetch(upload.actions.verify!.href, { method: 'POST', headers: { ...upload.actions.verify!.header, 'content-type': LFS_TYPE }, body: JSON.stringify({ oid, size: content.length }) });
    expect(verify.status).toBe(200);
    expect(await stored(ID, oid)).toBe(content.length);
    expect(await metric('githost_git_storage_lfs_direct_bytes_total', 'direction="upload"')).toBe(uploadedBefore + content.length);

    const download = await batch('download', [{ oid, size: content.length }]);
    expect(download.actions.download!.href).toBe(direct(`objects/${oid}`));
    const get = await fetch(download.actions.download!.href, { headers: download.actions.download!.header });
    expect([get.status, get.headers.get('content-length')]).toEqual([200, String(content.length)]);
    expect(Buffer.from(await get.arrayBuffer()).equals(content)).toBe(true);
  });

  it('when a grant is expired, forged, for another oid, another repository, the other operation or another size, then the upload is 401 or 403 in git-lfs form and nothing is stored', async () => {
    const content = randomBytes(50_000);
    const oid = oidOf(content);
    const size = content.length;
    const cases: Array<[string, Record<string, string>, number]> = [
      ['none', {}, 401],
      ['expired', grant({ oid, size, expires_at: Date.now() - 1 }), 401],
      ['forged', grant({ oid, size }, 'not-the-secret'), 401],
      ['another oid', grant({ oid: oidOf(Buffer.from('x')), size }), 403],
      ['another repository by name', grant({ oid, size, repository: 'alice/other' }), 403],
      ['another repository by id', grant({ oid, size, repository_id: OTHER, repository: 'alice/other' }), 403],
      ['download grant', grant({ oid, size, operation: 'download' }), 403],
      ['another size', grant({ oid, size: size + 1 }), 403],
      ['the whole-API credential of git-lfs-authenticate', grant({ oid: null, size }), 403],
      ['a read-only deploy key', grant({ oid, size, max_permission: 'read' }), 403],
      ['no repository id (a grant for the gateway)', { Authorization: `RemoteAuth ${signLfsActionGrant({ principal, repository: 'alice/demo', oid, operation: 'upload', expires_at: Date.now() + 60_000 }, s.secret)}` }, 403],
      ['the gateway\'s signed identity instead of a grant', identityHeaders(), 401],
    ];
    const answers = [];
    for (const [what, headers] of cases) {
      const res = await fetch(direct(`objects/${oid}`), { method: 'PUT', headers, body: content });
      answers.push([what, ...(await refusal(res))]);
    }
    expect(answers).toEqual(cases.map(([what, , status]) => [what, status, LFS_TYPE, 'string', 'string']));
    expect(await stored(ID, oid)).toBeUndefined();
    expect(await stored(OTHER, oid)).toBeUndefined();
    expect(await temporaries()).toEqual([]);
  });

  it('when a download grant is for another object or repository, or an upload grant is used to read, then the download is refused and no byte is sent', async () => {
    const content = randomBytes(10_000);
    const oid = oidOf(content);
    const upload = await batch('upload', [{ oid, size: content.length }]);
    expect((await fetch(upload.actions.upload!.href, { method: 'PUT', headers: upload.actions.upload!.header, body: content })).status).toBe(200);
    const cases: Array<[string, Record<string, string>, number]> = [
      ['upload grant', grant({ oid, size: content.length }), 403],
      ['another oid', grant({ oid: oidOf(Buffer.from('y')), size: content.length, operation: 'download' }), 403],
      ['another repository', grant({ oid, size: content.length, operation: 'download', repository: 'alice/other', repository_id: OTHER }), 403],
      ['expired', grant({ oid, size: content.length, operation: 'download', expires_at: Date.now() - 1 }), 401],
    ];
    const answers = [];
    for (const [what, headers] of cases) answers.push([what, ...(await refusal(await fetch(direct(`objects/${oid}`), { headers })))]);
    expect(answers).toEqual(cases.map(([what, , status]) => [what, status, LFS_TYPE, 'string', 'string']));
  });

  it('when an upload does not hash to its oid, then it is 400 in git-lfs form and nothing is stored', async () => {
    const content = randomBytes(20_000);
    const oid = oidOf(randomBytes(20_000));
    const res = await fetch(direct(`objects/${oid}`), { method: 'PUT', headers: grant({ oid, size: content.length }), body: content });
    expect((await refusal(res))[0]).toBe(400);
    expect(await stored(ID, oid)).toBeUndefined();
    expect(await temporaries()).toEqual([]);
  });

  it('when a path is not an LFS object path (health, metrics, git transport, batch, locks, another prefix), then it is 404', async () => {
    const oid = oidOf(Buffer.from('z'));
    const headers = grant({ oid, size: 1 });
    const base = s.lfsDirectUrl!;
    const origin = new URL(base).origin;
    const paths: Array<[string, string]> = [
      ['GET', `${base}/healthz`],
      ['GET', `${origin}/healthz`],
      ['GET', `${origin}/metrics`],
      ['GET', `${base}/alice/demo.git/info/refs?service=git-upload-pack`],
      ['POST', `${base}/alice/demo.git/info/lfs/objects/batch`],
      ['GET', `${base}/alice/demo.git/info/lfs/locks`],
      ['GET', `${origin}/alice/demo.git/info/lfs/objects/${oid}`],
      ['DELETE', `${base}/alice/demo.git/info/lfs/objects/${oid}`],
    ];
    const statuses = [];
    for (const [method, url] of paths) {
      const res = await fetch(url, { method, headers: { ...headers, ...identityHeaders() } });
      statuses.push([method, url.replace(origin, ''), ...(await refusal(res))]);
    }
    expect(statuses).toEqual(paths.map(([method, url]) => [method, url.replace(origin, ''), 404, LFS_TYPE, 'string', 'string']));
  });
});

describe('direct LFS transfers within the limits', () => {
  let limited: TestStorage;
  beforeAll(async () => {
    limited = await startTestStorage({ lfsDirectPath: '', lfsMaxObjectBytes: 1000 });
    await createTestRepository(limited, ID);
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it('when a granted upload is larger than LFS_MAX_OBJECT_BYTES, then it is 413 in git-lfs form and nothing is stored', async () => {
    const content = randomBytes(2000);
    const oid = oidOf(content);
    const res = await fetch(`${limited.lfsDirectUrl}/alice/demo.git/info/lfs/objects/${oid}`, { method: 'PUT', headers: grant({ oid, size: content.length }, limited.secret), body: content });
    expect(await refusal(res)).toEqual([413, LFS_TYPE, 'string', 'string']);
    expect(await limited.service.context.lfs.size(ID, oid)).toBeUndefined();
  });
});
