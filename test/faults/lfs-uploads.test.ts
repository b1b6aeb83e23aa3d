/**
 * Git LFS uploads cut short (docs/decisions/lfs.md, issue's Part 2 item 4) against githost as
 * deployed (one process per service, the real Postgres and RabbitMQ): a client that goes away,
 * and git-storage killed with -9 mid-upload, leave no object and no temporary file once it is
 * back; two uploads of one oid at once store it once.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@githost/db';
import { removeBrokerTopology } from '@githost/bus/testing';
import { waitFor } from '@githost/test-support';
import { Cluster } from './cluster.js';

const amqpUrl = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
const suffix = `${process.pid}.${randomBytes(4).toString('hex')}`;
const names = { exchange: `githost.events.lfs-faults.${suffix}`, webhooksQueue: `githost.webhooks.lfs-faults.${suffix}`, mergeRequestsQueue: `githost.merge-requests.lfs-faults.${suffix}`, accountsQueue: `githost.accounts.lfs-faults.${suffix}` };
const LFS_JSON = 'application/vnd.git-lfs+json';
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

let root: string;
let database: { url: string; drop(): Promise<void> };
let cluster: Cluster;
let authorization: string;
let repositoryId: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'githost-lfs-faults-'));
  database = await createTestDatabase('githost_lfs_faults');
  cluster = new Cluster({ dataDir: root, databaseUrl: database.url, amqpUrl, ...names });
  await cluster.init();
  await cluster.startAll();
  const notReady = await cluster.waitAllReady(60_000);
  if (notReady.length) throw new Error(`not ready:\n${notReady.join('\n')}`);
  const admin = { authorization: `Bearer ${cluster.adminToken}`, 'content-type': 'application/json' };
  expect((await fetch(`${cluster.url}/api/admin/users`, { method: 'POST', headers: admin, body: JSON.stringify({ username: 'lena', email: 'lena@example.com' }) })).status).toBe(201);
  const { token } = (await (await fetch(`${cluster.url}/api/admin/users/lena/tokens`, { method: 'POST', headers: admin })).json()) as { token: string };
  authorization = `Basic ${Buffer.from(`lena:${token}`).toString('base64')}`;
  const made = await fetch(`${cluster.url}/api/repos`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'assets', private: true }) });
  repositoryId = ((await made.json()) as { id: string }).id;
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await database?.drop().catch(() => undefined);
  await removeBrokerTopology(amqpUrl, names.exchange, [names.webhooksQueue, names.mergeRequestsQueue, names.accountsQueue]).catch(() => undefined);
  if (root && !process.env.FAULTS_KEEP) rmSync(root, { recursive: true, force: true });
}, 120_000);

const objectUrl = (oid: string) => `${cluster.url}/lena/assets.git/info/lfs/objects/${oid}`;
const lfsDir = () => path.join(cluster.dataDirOf('git-storage'), 'lfs');
/** What git-storage's LFS temporary folder holds. */
const temporaries = () => (existsSync(path.join(lfsDir(), 'tmp')) ? readdirSync(path.join(lfsDir(), 'tmp')) : []);
const stored = (oid: string) => existsSync(path.join(lfsDir(), sha256(repositoryId), oid.slice(0, 2), oid.slice(2, 4), oid));

/** An upload that sends the first `sent` bytes of `content` and then waits, its socket open. */
function partialUpload(content: Buffer, sent: number): { req: ClientRequest; ended: Promise<string> } {
  const req = request(objectUrl(sha256(content)), { method: 'PUT', headers: { authorization, 'content-type': 'application/octet-stream', 'content-length': String(content.length) } });
  const ended = new Promise<string>((resolve) => {
    req.on('response', (res) => resolve(`answered ${res.statusCode}`));
    req.on('error', (err) => resolve(`error ${err.message}`));
  });
  req.write(content.subarray(0, sent));
  return { req, ended };
}

/** The batch API's word on one object: its actions or its error. */
async function downloadAnswer(content: Buffer): Promise<unknown> {
  const res = await fetch(`${cluster.url}/lena/assets.git/info/lfs/objects/batch`, { method: 'POST', headers: { authorization, 'content-type': LFS_JSON }, body: JSON.stringify({ operation: 'download', objects: [{ oid: sha256(content), size: content.length }] }) });
  return ((await res.json()) as { objects: { error?: unknown }[] }).objects[0]!.error;
}

describe('Git LFS uploads cut short', () => {
  it('when the client goes away mid-upload, then no object and no temporary file remain', async () => {
    const content = randomBytes(8 * 1024 * 1024);
    const upload = partialUpload(content, 2 * 1024 * 1024);
    await waitFor(() => temporaries().length > 0, 'the upload to reach its temporary file', 30_000);
    upload.req.destroy();
    await upload.ended;
    await waitFor(() => temporaries().length === 0, 'the temporary file to be removed', 15_000);
    expect(stored(sha256(content))).toBe(false);
    expect(await downloadAnswer(content)).toEqual({ code: 404, message: 'Object does not exist' });
  }, 60_000);

  it('when git-storage is killed with -9 mid-upload, then the client errs and after the restart no object and no temporary file remain', async () => {
    const content = randomBytes(8 * 1024 * 1024);
    const upload = partialUpload(content, 2 * 1024 * 1024);
    await waitFor(() => temporaries().length > 0, 'the upload to reach its temporary file', 30_000);
    await cluster.kill('git-storage');
    // What the kill left: the half-written temporary file, which only the next start can clear.
    expect(temporaries().length).toBe(1);
    expect(await upload.ended).toMatch(/^(answered 5\d\d|error )/);
    upload.req.destroy();
    await cluster.start('git-storage');
    expect(await cluster.waitAllReady(60_000)).toEqual([]);
    expect(temporaries()).toEqual([]);
    expect(stored(sha256(content))).toBe(false);
    expect(await downloadAnswer(content)).toEqual({ code: 404, message: 'Object does not exist' });
  }, 120_000);

  it('when two uploads of the same oid run at once, then both succeed and the object is stored once, whole', async () => {
    const content = randomBytes(6 * 1024 * 1024);
    const oid = sha256(content);
    const put = () => fetch(objectUrl(oid), { method: 'PUT', headers: { authorization, 'content-type': 'application/octet-stream' }, body: content });
    const answers = await Promise.all([put(), put()]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(readdirSync(path.join(lfsDir(), sha256(repositoryId), oid.slice(0, 2), oid.slice(2, 4)))).toEqual([oid]);
    expect(temporaries()).toEqual([]);
    const read = await fetch(objectUrl(oid), { headers: { authorization } });
    expect(sha256(Buffer.from(await read.arrayBuffer()))).toBe(oid);
  }, 60_000);
});
