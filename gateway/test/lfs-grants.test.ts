import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as accountsService from '@githost/accounts';
import * as storageService from '@githost/git-storage';
import { createServer, loadConfig, type Service } from '../src/index.js';
import { DEFAULT_TTLS } from '../src/clients/cached-accounts.js';

/**
 * An LFS action's grant is admitted on its signature and the gateway's cached Authorize answer
 * (docs/decisions/lfs.md#throughput): two gateway replicas in front of the real accounts and
 * git-storage (PGlite, temp data dir), as two pods would be. A removal made through one replica
 * shows there at once and on the other within the Authorize cache's lifetime, as for any credential.
 */
const SECRET = 'gateway-lfs-grants-test-secret';
const ADMIN = 'gateway-lfs-grants-bootstrap-admin';
const LFS_TYPE = 'application/vnd.git-lfs+json';

let dir: string;
let storage: storageService.Service;
let accounts: accountsService.Service;
const replicas: Service[] = [];
let first: string;
let second: string;

interface Action {
  href: string;
  header: Record<string, string>;
}

async function api(base: string, method: string, p: string, token: string, body?: unknown): Promise<number> {
  const res = await fetch(base + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
}

async function issueToken(username: string): Promise<string> {
  expect(await api(first, 'POST', '/api/admin/users', ADMIN, { username, email: `${username}@example.com` })).toBe(201);
  const res = await fetch(`${first}/api/admin/users/${username}/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'lfs' }) });
  return ((await res.json()) as { token: string }).token;
}

function object(content: string): { oid: string; size: number; bytes: Buffer } {
  const bytes = Buffer.from(content);
  return { oid: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, bytes };
}

/** The batch's actions for each object, by oid (git-lfs docs/api/batch.md). */
async function batch(base: string, token: string, repo: string, operation: 'upload' | 'download', objects: Array<{ oid: string; size: number }>): Promise<Map<string, Record<string, Action>>> {
  const res = await fetch(`${base}/${repo}.git/info/lfs/objects/batch`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}`, accept: LFS_TYPE, 'content-type': LFS_TYPE },
    body: JSON.stringify({ operation, transfers: ['basic'], objects: objects.map(({ oid, size }) => ({ oid, size })) }),
  });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { objects: Array<{ oid: string; actions: Record<string, Action> }> };
  return new Map(answer.objects.map((o) => [o.oid, o.actions]));
}

/** An action sent to one replica: the href's path (its host is PUBLIC_URL's) with the action's headers. */
async function act(base: string, action: Action, method: string, body?: Buffer | string): Promise<{ status: number; text: string }> {
  const res = await fetch(base + new URL(action.href).pathname, { method, headers: { ...action.header, ...(typeof body === 'string' ? { 'content-type': LFS_TYPE } : {}) }, body });
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'githost-lfs-grants-'));
  const env = { DATA_DIR: dir, HTTP_PORT: '0', GRPC_PORT: '0', METRICS_PORT: '0', GITHOST_INTERNAL_SECRET: SECRET, GITHOST_ADMIN_TOKEN: ADMIN, DATABASE_URL: '', AMQP_URL: '' };
  storage = storageService.createServer(storageService.loadConfig({ ...env, ACCOUNTS_GRPC_ADDR: '127.0.0.1:1' }));
  const s = await storage.start();
  accounts = accountsService.createServer(accountsService.loadConfig({ ...env, GIT_STORAGE_GRPC_ADDR: `127.0.0.1:${s.grpcPort}` }));
  const a = await accounts.start();
  for (let i = 0; i < 2; i++) {
    const gateway = createServer(loadConfig({
      PORT: '0',
      METRICS_PORT: '0',
      GITHOST_INTERNAL_SECRET: SECRET,
      ACCOUNTS_GRPC_ADDR: `127.0.0.1:${a.grpcPort}`,
      ACCOUNTS_HTTP_URL: `http://127.0.0.1:${a.httpPort}`,
      GIT_STORAGE_HTTP_URL: `http://127.0.0.1:${s.httpPort}`,
    }));
    replicas.push(gateway);
    const base = `http://127.0.0.1:${(await gateway.start()).httpPort}`;
    if (i === 0) first = base;
    else second = base;
  }
});

afterAll(async () => {
  for (const gateway of replicas) await gateway.stop();
  await accounts?.stop();
  await storage?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('LFS action grants at the gateway', () => {
  it('when a collaborator is removed, then the grants of their earlier batch are refused: at once on the replica that removed them, within the Authorize cache on another, and nothing is stored', async () => {
    const alice = await issueToken('alice');
    const bob = await issueToken('bob');
    expect(await api(first, 'POST', '/api/repos', alice, { name: 'media', private: true })).toBe(201);
    expect(await api(first, 'PUT', '/api/repos/alice/media/collaborators/bob', alice, { permission: 'write' })).toBe(204);
    const [kept, refusedHere, refusedThere] = [object('kept by bob'), object('refused on the first replica'), object('refused on the second replica')];
    const actions = await batch(first, bob, 'alice/media', 'upload', [kept, refusedHere, refusedThere]);

    // Bob's grants work on both replicas, each now holding his Authorize answer.
    expect((await act(first, actions.get(kept.oid)!.upload!, 'PUT', kept.bytes)).status).toBe(200);
    expect((await act(second, actions.get(kept.oid)!.verify!, 'POST', JSON.stringify({ oid: kept.oid, size: kept.size }))).status).toBe(200);

    expect(await api(first, 'DELETE', '/api/repos/alice/media/collaborators/bob', alice)).toBe(204);
    // The private repository is now one bob cannot see: 404, as for any stranger.
    const here = await act(first, actions.get(refusedHere.oid)!.upload!, 'PUT', refusedHere.bytes);
    expect([here.status, JSON.parse(here.text).message]).toEqual([404, 'Repository not found']);
    await sleep(DEFAULT_TTLS.authorizedMs + 200);
    const there = await act(second, actions.get(refusedThere.oid)!.upload!, 'PUT', refusedThere.bytes);
    expect([there.status, JSON.parse(there.text).message]).toEqual([404, 'Repository not found']);
    expect((await act(second, actions.get(kept.oid)!.verify!, 'POST', JSON.stringify({ oid: kept.oid, size: kept.size }))).status).toBe(404);

    // Only the object uploaded before the removal is there.
    const stored = await batch(first, alice, 'alice/media', 'download', [kept, refusedHere, refusedThere]);
    expect([...stored.entries()].map(([oid, a]) => [oid, Boolean(a?.download)])).toEqual([
      [kept.oid, true],
      [refusedHere.oid, false],
      [refusedThere.oid, false],
    ]);
  });

  it('when a user is suspended, then the grants of their earlier batch are refused with the credential challenge: at once on the replica that suspended them, within the Authorize cache on another', async () => {
    const carol = await issueToken('carol');
    expect(await api(first, 'POST', '/api/repos', carol, { name: 'assets', private: false })).toBe(201);
    const shown = object('a public object');
    const upload = await batch(first, carol, 'carol/assets', 'upload', [shown]);
    expect((await act(first, upload.get(shown.oid)!.upload!, 'PUT', shown.bytes)).status).toBe(200);
    const download = (await batch(first, carol, 'carol/assets', 'download', [shown])).get(shown.oid)!.download!;
    // Past the token's cached answer: from here on the grant alone names carol to the gateway.
    await sleep(DEFAULT_TTLS.authenticatedMs + 200);
    expect((await act(first, download, 'GET')).text).toBe('a public object');
    expect((await act(second, download, 'GET')).text).toBe('a public object');

    expect(await api(first, 'PATCH', '/api/admin/users/carol', ADMIN, { suspended: true })).toBe(200);
    const here = await fetch(first + new URL(download.href).pathname, { headers: download.header });
    expect([here.status, here.headers.get('lfs-authenticate')]).toEqual([401, 'Basic realm="githost"']);
    await sleep(DEFAULT_TTLS.authorizedMs + 200);
    const there = await fetch(second + new URL(download.href).pathname, { headers: download.header });
    expect([there.status, there.headers.get('lfs-authenticate')]).toEqual([401, 'Basic realm="githost"']);
    // The object itself stays public: anyone may still read it without a grant.
    expect(await (await fetch(second + new URL(download.href).pathname)).text()).toBe('a public object');
  });
});
