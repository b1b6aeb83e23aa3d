import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addCollaborator, api, assertMatchesOpenApi, cloneUrl, commitFiles, createRepo, createUsers, git, gitResult, makeWorkdir, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/** Git LFS over HTTP through the gateway with the real `git lfs` client (docs/decisions/lfs.md). */

let gh: TestGithost;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
const big = randomBytes(24 * 1024 * 1024);
const bigOid = createHash('sha256').update(big).digest('hex');

// PUBLIC_URL is http://localhost:<port> in tests: the batch's hrefs and the remote share a host,
// so git lfs sends the remote's credentials to them as well.
const remote = (user: TestUser, repo: string) => `http://${user.username}:${user.token}@localhost:${gh.port}/alice/${repo}.git`;
const lfsUrl = (repo: string, rest: string) => `http://localhost:${gh.port}/alice/${repo}.git/info/lfs/${rest}`;
const basic = (user: TestUser) => ({ authorization: `Basic ${Buffer.from(`${user.username}:${user.token}`).toString('base64')}` });
const LFS_JSON = 'application/vnd.git-lfs+json';

async function batch(user: TestUser | null, repo: string, operation: 'upload' | 'download', objects: { oid: string; size: number }[]) {
  const res = await fetch(lfsUrl(repo, 'objects/batch'), { method: 'POST', headers: { ...(user ? basic(user) : {}), 'content-type': LFS_JSON, accept: LFS_JSON }, body: JSON.stringify({ operation, transfers: ['basic'], objects }) });
  const answer = { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as { objects?: { oid: string; error?: { code: number }; actions?: Record<string, { href: string }> }[]; message?: string } };
  assertMatchesOpenApi('POST', `/alice/${repo}.git/info/lfs/objects/batch`, answer.status, answer.type, answer.body);
  return answer;
}

beforeAll(async () => {
  gh = await startTestGithost();
  [alice, bob, carol] = await createUsers(gh, 'alice', 'bob', 'carol');
  await createRepo(gh, alice.token, 'media', { private: true });
  await createRepo(gh, alice.token, 'other', { private: true });
  await addCollaborator(gh, alice.token, 'alice', 'media', 'bob', 'read');
  await git(makeWorkdir(), 'lfs', 'install', '--skip-repo');
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

describe('Git LFS through the gateway', () => {
  it('when a tracked 24 MiB file is pushed, then a clone elsewhere checks out its content and git holds only the pointer', async () => {
    const work = makeWorkdir();
    await git(work, 'init', '-q', '-b', 'main');
    await git(work, 'lfs', 'track', '*.bin');
    await commitFiles(work, { 'big.bin': big, 'readme.txt': 'hello\n' }, 'large file');
    const pushed = await gitResult(work, 'push', remote(alice, 'media'), 'main');
    expect(pushed.stderr).not.toContain('Locking support detected');
    expect(pushed.code).toBe(0);

    const clone = makeWorkdir();
    await git(clone, 'clone', '-q', remote(bob, 'media'), 'copy');
    expect(readFileSync(path.join(clone, 'copy', 'big.bin')).equals(big)).toBe(true);
    const pointer = await git(path.join(clone, 'copy'), 'cat-file', '-p', 'HEAD:big.bin');
    expect(pointer).toContain(`oid sha256:${bigOid}`);
  }, 180_000);

  it('when a 200 MiB file is pushed with git lfs, then a clone elsewhere checks out the same bytes', async () => {
    const huge = randomBytes(200 * 1024 * 1024);
    await createRepo(gh, alice.token, 'assets', { private: true });
    const work = makeWorkdir();
    await git(work, 'init', '-q', '-b', 'main');
    await git(work, 'lfs', 'track', '*.bin');
    await commitFiles(work, { 'huge.bin': huge }, 'a 200 MiB asset');
    expect((await gitResult(work, 'push', remote(alice, 'assets'), 'main')).code).toBe(0);

    const clone = makeWorkdir();
    await git(clone, 'clone', '-q', remote(alice, 'assets'), 'copy');
    const copied = readFileSync(path.join(clone, 'copy', 'huge.bin'));
    expect([copied.length, createHash('sha256').update(copied).digest('hex')]).toEqual([huge.length, createHash('sha256').update(huge).digest('hex')]);
  }, 300_000);

  it('when a repository is public, then an anonymous clone downloads its LFS content without any credential', async () => {
    await createRepo(gh, alice.token, 'open');
    const work = makeWorkdir();
    await git(work, 'init', '-q', '-b', 'main');
    await git(work, 'lfs', 'track', '*.bin');
    const small = randomBytes(100_000);
    await commitFiles(work, { 'small.bin': small }, 'small');
    await git(work, 'push', '-q', remote(alice, 'open'), 'main');
    const clone = makeWorkdir();
    await git(clone, 'clone', '-q', cloneUrl(gh, 'alice', 'open').replace('127.0.0.1', 'localhost'), 'copy');
    expect(readFileSync(path.join(clone, 'copy', 'small.bin')).equals(small)).toBe(true);
  }, 120_000);

  it('when a reader or a stranger asks to upload, then the reader gets 403 and the stranger 404, and nothing is stored', async () => {
    const oid = createHash('sha256').update('never stored').digest('hex');
    const byReader = await batch(bob, 'media', 'upload', [{ oid, size: 12 }]);
    expect([byReader.status, byReader.type, byReader.body.message]).toEqual([403, LFS_JSON, 'You do not have write access to this repository']);
    const byStranger = await batch(carol, 'media', 'upload', [{ oid, size: 12 }]);
    expect([byStranger.status, byStranger.type, byStranger.body]).toEqual([404, LFS_JSON, { message: 'Repository not found', request_id: expect.any(String) }]);
    // The gateway's own refusal, in git-lfs's shape as git-storage's are.
    const put = await fetch(lfsUrl('media', `objects/${oid}`), { method: 'PUT', headers: basic(bob), body: 'never stored' });
    expect([put.status, put.headers.get('content-type'), await put.json()]).toEqual([403, LFS_JSON, { message: 'You do not have write access to this repository', request_id: expect.any(String) }]);
    const download = await batch(alice, 'media', 'download', [{ oid, size: 12 }]);
    expect(download.body.objects).toEqual([{ oid, size: 12, error: { code: 404, message: 'Object does not exist' } }]);
  });

  it('when a token without the write scope asks to upload, then it is refused with 403, even for the owner', async () => {
    const created = await api(gh, 'POST', '/api/user/tokens', { token: alice.token, body: { name: 'lfs-reader', scopes: ['read'] } });
    const readOnly: TestUser = { ...alice, token: created.body.token };
    const oid = createHash('sha256').update('read-only').digest('hex');
    const answer = await batch(readOnly, 'media', 'upload', [{ oid, size: 9 }]);
    expect([answer.status, answer.body.message]).toEqual([403, 'You do not have write access to this repository']);
    const put = await fetch(lfsUrl('media', `objects/${oid}`), { method: 'PUT', headers: basic(readOnly), body: 'read-only' });
    expect(put.status).toBe(403);
    const download = await batch(readOnly, 'media', 'download', [{ oid: bigOid, size: big.length }]);
    expect(download.body.objects![0]!.actions!.download!.href).toBe(lfsUrl('media', `objects/${bigOid}`));
  });

  it('when a stranger or another repository asks for a private object by its oid, then it is not found', async () => {
    const byStranger = await fetch(lfsUrl('media', `objects/${bigOid}`), { headers: basic(carol) });
    expect(byStranger.status).toBe(404);
    const anonymous = await batch(null, 'media', 'download', [{ oid: bigOid, size: big.length }]);
    expect([anonymous.status, anonymous.type, anonymous.body]).toEqual([401, LFS_JSON, { message: 'Authentication required', request_id: expect.any(String) }]);
    const challenged = await fetch(lfsUrl('media', `objects/${bigOid}`));
    expect([challenged.status, challenged.headers.get('www-authenticate'), challenged.headers.get('lfs-authenticate')]).toEqual([401, 'Basic realm="githost"', 'Basic realm="githost"']);
    // alice may read both repositories, but the object was uploaded through media only.
    const elsewhere = await fetch(lfsUrl('other', `objects/${bigOid}`), { headers: basic(alice) });
    const missing = await elsewhere.json();
    assertMatchesOpenApi('GET', `/alice/other.git/info/lfs/objects/${bigOid}`, elsewhere.status, elsewhere.headers.get('content-type'), missing);
    expect([elsewhere.status, elsewhere.headers.get('content-type'), missing]).toEqual([404, LFS_JSON, { message: 'Object does not exist', request_id: expect.any(String) }]);
    const elsewhereBatch = await batch(alice, 'other', 'download', [{ oid: bigOid, size: big.length }]);
    expect(elsewhereBatch.body.objects![0]!.error).toEqual({ code: 404, message: 'Object does not exist' });
  });

  it('when an upload does not match its oid, then it is refused with 400 and nothing is stored; an invalid oid or size is that object\'s 422', async () => {
    const content = Buffer.from('the real content\n');
    const oid = createHash('sha256').update(content).digest('hex');
    const corrupt = await fetch(lfsUrl('media', `objects/${oid}`), { method: 'PUT', headers: basic(alice), body: Buffer.from('the fake content\n') });
    expect([corrupt.status, ((await corrupt.json()) as { message: string }).message]).toEqual([400, 'The uploaded content does not match its oid (sha256)']);
    const answer = await batch(alice, 'media', 'download', [{ oid, size: content.length }]);
    expect(answer.body.objects![0]!.error).toEqual({ code: 404, message: 'Object does not exist' });
    const invalid = await batch(alice, 'media', 'upload', [{ oid: 'not-an-oid', size: 3 }, { oid, size: -1 }]);
    expect(invalid.body.objects!.map((o) => o.error?.code)).toEqual([422, 422]);
    expect(lfsTemporaryFiles()).toEqual([]);
  });

  it('when a writer locks a file, then the lock is listed, the path cannot be locked again, a reader cannot force it open, and unlocking frees it', async () => {
    const work = makeWorkdir();
    await git(work, 'clone', '-q', remote(alice, 'media'), 'c');
    const dir = path.join(work, 'c');
    await git(dir, 'lfs', 'lock', 'big.bin');
    expect(await git(dir, 'lfs', 'locks')).toMatch(/big\.bin\s+alice\s+ID:/);
    const again = await gitResult(dir, 'lfs', 'lock', 'big.bin');
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('already created lock');
    // the reader sees the lock but may not remove it
    const listed = await fetch(lfsUrl('media', 'locks'), { headers: { ...basic(bob), accept: LFS_JSON } });
    const listedBody = await listed.json();
    assertMatchesOpenApi('GET', '/alice/media.git/info/lfs/locks', listed.status, listed.headers.get('content-type'), listedBody);
    const { locks } = listedBody as { locks: { id: string; path: string; owner: { name: string } }[] };
    expect(locks.map((l) => [l.path, l.owner.name])).toEqual([['big.bin', 'alice']]);
    const byReader = await fetch(lfsUrl('media', `locks/${locks[0]!.id}/unlock`), { method: 'POST', headers: { ...basic(bob), 'content-type': LFS_JSON }, body: JSON.stringify({ force: true }) });
    expect(byReader.status).toBe(403);
    await git(dir, 'lfs', 'unlock', 'big.bin');
    expect(await git(dir, 'lfs', 'locks')).toBe('');
  }, 120_000);
});

/** What the shard's LFS temporary folder holds (a refused or killed upload leaves nothing). */
function lfsTemporaryFiles(): string[] {
  const tmp = path.join(gh.dataDir, 'lfs', 'tmp');
  return existsSync(tmp) ? readdirSync(tmp) : [];
}
