import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { commitFiles, createRepo, createUsers, git, gitResult, makeWorkdir, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * Git LFS with direct transfers on (GITHOST_LFS_DIRECT, docs/decisions/lfs.md#direct-transfers):
 * the real `git lfs` client asks the batch through the gateway and moves the object's bytes
 * straight to and from the shard's own listener.
 */

let gh: TestGithost;
let alice: TestUser;
const content = randomBytes(5 * 1024 * 1024 + 123);
const oid = createHash('sha256').update(content).digest('hex');
const LFS_JSON = 'application/vnd.git-lfs+json';
const remote = (user: TestUser, repo: string) => `http://${user.username}:${user.token}@localhost:${gh.port}/alice/${repo}.git`;
const basic = (user: TestUser) => ({ authorization: `Basic ${Buffer.from(`${user.username}:${user.token}`).toString('base64')}` });

/** Each series of a metric family whose labels include every one of `labels`, summed. */
async function metric(name: string, ...labels: string[]): Promise<number> {
  const text = await (await fetch(gh.metricsUrl)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && labels.every((label) => l.includes(label)))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

/** What moved the object's bytes: the shard's direct listener, and the object paths through the
 *  gateway (git-storage's internal port, which only the gateway reaches). */
async function counters() {
  return {
    directUploaded: await metric('githost_git_storage_lfs_direct_bytes_total', 'direction="upload"'),
    directDownloaded: await metric('githost_git_storage_lfs_direct_bytes_total', 'direction="download"'),
    directRequests: await metric('githost_git_storage_http_request_duration_seconds_count', 'route="direct:'),
    throughGateway: await metric('githost_git_storage_http_request_duration_seconds_count', 'route="/:owner/:repo.git/info/lfs/objects/:oid'),
  };
}

beforeAll(async () => {
  // Loopback only: the test's clients are on this machine.
  gh = await startTestGithost({ env: { GITHOST_LFS_DIRECT: 'true', LFS_DIRECT_BIND_HOST: '127.0.0.1' } });
  [alice] = await createUsers(gh, 'alice');
  await createRepo(gh, alice.token, 'assets', { private: true });
  await git(makeWorkdir(), 'lfs', 'install', '--skip-repo');
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

describe('Git LFS with direct transfers', () => {
  it('when a batch is asked through the gateway, then the actions point at the shard\'s own listener with a grant', async () => {
    const res = await fetch(`http://localhost:${gh.port}/alice/assets.git/info/lfs/objects/batch`, {
      method: 'POST',
      headers: { ...basic(alice), 'content-type': LFS_JSON, accept: LFS_JSON },
      body: JSON.stringify({ operation: 'upload', transfers: ['basic'], objects: [{ oid, size: content.length }] }),
    });
    const body = (await res.json()) as { objects: Array<{ actions: Record<string, { href: string; header: Record<string, string> }> }> };
    const upload = body.objects[0]!.actions.upload!;
    const href = new URL(upload.href);
    expect([res.status, href.hostname, href.port === String(gh.port), href.pathname]).toEqual([200, 'localhost', false, `/alice/assets.git/info/lfs/objects/${oid}`]);
    expect(upload.header.Authorization).toMatch(/^RemoteAuth [\w-]+\.[0-9a-f]+$/);
  });

  it('when a tracked file is pushed and cloned elsewhere, then the content matches and its bytes went through the shard\'s direct listener, not the gateway', async () => {
    const before = await counters();
    const work = makeWorkdir();
    await git(work, 'init', '-q', '-b', 'main');
    await git(work, 'lfs', 'track', '*.bin');
    await commitFiles(work, { 'asset.bin': content }, 'an asset');
    const pushed = await gitResult(work, 'push', remote(alice, 'assets'), 'main');
    expect([pushed.code, pushed.stderr]).toEqual([0, expect.not.stringContaining('error')]);
    const afterPush = await counters();
    expect(afterPush.directUploaded - before.directUploaded).toBe(content.length);

    const clone = makeWorkdir();
    await git(clone, 'clone', '-q', remote(alice, 'assets'), 'copy');
    expect(readFileSync(path.join(clone, 'copy', 'asset.bin')).equals(content)).toBe(true);
    expect(await git(path.join(clone, 'copy'), 'cat-file', '-p', 'HEAD:asset.bin')).toContain(`oid sha256:${oid}`);

    const after = await counters();
    expect({
      directUploaded: after.directUploaded - before.directUploaded,
      directDownloaded: after.directDownloaded - before.directDownloaded,
      throughGateway: after.throughGateway - before.throughGateway,
    }).toEqual({ directUploaded: content.length, directDownloaded: content.length, throughGateway: 0 });
    // An upload, its verify and a download: three object requests on the direct listener.
    expect(after.directRequests - before.directRequests).toBe(3);
  }, 180_000);
});
