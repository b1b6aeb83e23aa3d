import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { commitFiles, createRepo, createUser, git, gitResultWithEnv, makeWorkdir, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * LFS object transfers spend a budget of their own, not the git one
 * (docs/decisions/shared-rate-limits.md#lfs-object-transfers): the real git-lfs client pushes and
 * fetches more objects than a small git budget admits requests, with the LFS budget at its default.
 */
const GIT_LIMIT = 20;
const OBJECTS = 48;

let gh: TestGithost;
let alice: TestUser;

// PUBLIC_URL is http://localhost:<port> in tests: the batch's hrefs and the remote share a host.
const remote = (user: TestUser, repo: string) => `http://${user.username}:${user.token}@localhost:${gh.port}/alice/${repo}.git`;

/** The statuses of every HTTP answer git (`<= Recv header: HTTP/1.1 200 OK`) and git-lfs
 *  (`< HTTP/1.1 200 OK`) received: GIT_CURL_VERBOSE makes both print each. */
function statusesIn(stderr: string): string[] {
  return [...stderr.matchAll(/(?:^< |<= Recv header: )HTTP\/[\d.]+ (\d{3})/gm)].map((m) => m[1]!);
}

beforeAll(async () => {
  gh = await startTestGithost({ env: { GITHOST_GIT_RATE_LIMIT_PER_MINUTE: String(GIT_LIMIT) } });
  alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'assets', { private: true });
  await git(makeWorkdir(), 'lfs', 'install', '--skip-repo');
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

describe('LFS transfers and the git budget', () => {
  it('when a push and a clone move more LFS objects than the git budget admits requests, then both complete with no 429', async () => {
    const work = makeWorkdir();
    await git(work, 'init', '-q', '-b', 'main');
    await git(work, 'lfs', 'track', '*.bin');
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < OBJECTS; i++) files[`asset-${i}.bin`] = Buffer.from(`asset number ${i}\n`.repeat(64));
    await commitFiles(work, files, 'assets');

    // An upload is a PUT and a verify: 96 object requests, far over a git budget of 20.
    const pushed = await gitResultWithEnv(work, { GIT_CURL_VERBOSE: '1' }, 'push', remote(alice, 'assets'), 'main');
    const pushStatuses = statusesIn(pushed.stderr);
    expect([pushed.code, pushStatuses.filter((s) => s === '429').length]).toEqual([0, 0]);
    expect(pushStatuses.length).toBeGreaterThan(2 * OBJECTS);

    const clone = makeWorkdir();
    const cloned = await gitResultWithEnv(clone, { GIT_CURL_VERBOSE: '1' }, 'clone', remote(alice, 'assets'), 'copy');
    const cloneStatuses = statusesIn(cloned.stderr);
    expect([cloned.code, cloneStatuses.filter((s) => s === '429').length]).toEqual([0, 0]);
    expect(cloneStatuses.length).toBeGreaterThan(OBJECTS);
    const digest = (dir: string) => createHash('sha256').update(Object.keys(files).map((name) => readFileSync(path.join(dir, name))).join('')).digest('hex');
    expect(digest(path.join(clone, 'copy'))).toBe(digest(work));

    // The git budget is the small one and was not spent by the objects.
    const refs = await fetch(`http://localhost:${gh.port}/alice/assets.git/info/refs?service=git-upload-pack`, { headers: { authorization: `Bearer ${alice.token}` } });
    await refs.arrayBuffer();
    expect([refs.status, refs.headers.get('ratelimit-limit'), Number(refs.headers.get('ratelimit-remaining')) > 0]).toEqual([200, String(GIT_LIMIT), true]);
  }, 180_000);
});
