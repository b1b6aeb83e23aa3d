import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, assertMatchesOpenApi, commitFiles, createRepo, createUsers, git, makeWorkdir, startTestGithost, textOf, webGet, type TestGithost, type TestUser } from './support/index.js';

/** Git LFS wherever a file is shown: raw, the web's file page, archives; and a deleted repository's objects (docs/decisions/lfs.md#display). */

let gh: TestGithost;
let alice: TestUser;
const notes = 'hello from Git LFS\nsecond line\n';
const data = Buffer.concat([Buffer.from([0, 1, 2]), randomBytes(300_000)]);
const big = randomBytes(12 * 1024 * 1024);
const sha256 = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
/** A pointer to an object nobody uploaded, committed as a plain file. */
const strayOid = sha256('never uploaded');
const strayPointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${strayOid}\nsize 14\n`;

const remote = (repo: string) => `http://${alice.username}:${alice.token}@localhost:${gh.port}/alice/${repo}.git`;
const raw = (repo: string, refAndPath: string, headers: Record<string, string> = {}) => fetch(`${gh.url}/api/repos/alice/${repo}/raw/${refAndPath}`, { headers });

beforeAll(async () => {
  gh = await startTestGithost();
  [alice] = await createUsers(gh, 'alice');
  await createRepo(gh, alice.token, 'shown');
  await git(makeWorkdir(), 'lfs', 'install', '--skip-repo');
  const work = makeWorkdir();
  await git(work, 'init', '-q', '-b', 'main');
  await git(work, 'lfs', 'track', '*.bin', 'notes.txt');
  await commitFiles(work, { 'notes.txt': notes, 'data.bin': data, 'big.bin': big }, 'LFS files');
  await git(work, 'push', '-q', remote('shown'), 'main');
  // git lfs's pre-push hook would refuse a pointer whose object it does not have: pushed around it.
  await commitFiles(work, { 'stray.txt': strayPointer }, 'a pointer without its object');
  await git(work, 'push', '-q', '--no-verify', remote('shown'), 'main');
}, 180_000);

afterAll(async () => {
  await gh?.stop();
});

describe('Git LFS files where they are shown', () => {
  it('when raw is asked for an LFS text file, then it serves the object with its size and says so; the blob endpoint keeps the pointer (seed §4)', async () => {
    const res = await raw('shown', 'main/notes.txt');
    const body = await res.text();
    expect([res.status, body, res.headers.get('content-length'), res.headers.get('content-type'), res.headers.get('x-git-lfs')]).toEqual([200, notes, String(Buffer.byteLength(notes)), 'text/plain; charset=utf-8', 'stored']);
    const again = await raw('shown', 'main/notes.txt', { 'if-none-match': res.headers.get('etag')! });
    expect(again.status).toBe(304);
    const blob = await api(gh, 'GET', '/api/repos/alice/shown/blob/main/notes.txt');
    expect(blob.body.content).toBe(`version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(notes)}\nsize ${Buffer.byteLength(notes)}\n`);
  });

  it('when raw is asked for a large binary LFS file, then the object\'s bytes are streamed whole', async () => {
    const res = await raw('shown', 'main/big.bin');
    const body = Buffer.from(await res.arrayBuffer());
    expect([res.status, res.headers.get('content-length'), res.headers.get('content-type')]).toEqual([200, String(big.length), 'application/octet-stream']);
    expect(body.equals(big)).toBe(true);
  });

  it('when a pointer\'s object was never uploaded, then raw serves the pointer itself, marked missing and without a validator', async () => {
    const res = await raw('shown', 'main/stray.txt');
    const body = await res.text();
    assertMatchesOpenApi('GET', '/api/repos/alice/shown/raw/main/stray.txt', res.status, res.headers.get('content-type'), body);
    expect([res.status, body, res.headers.get('x-git-lfs'), res.headers.get('etag')]).toEqual([200, strayPointer, 'missing', null]);
  });

  it('when the web shows LFS files, then text is shown with "Stored with Git LFS", binary as binary, and a missing object as its pointer', async () => {
    const text = await webGet(gh, '/alice/shown/-/blob/main/notes.txt');
    expect(text.status).toBe(200);
    expect(textOf(text.html)).toContain('Stored with Git LFS');
    expect(textOf(text.html)).toContain('hello from Git LFS');
    expect(textOf(text.html)).not.toContain('git-lfs.github.com/spec');
    const binary = await webGet(gh, '/alice/shown/-/blob/main/data.bin');
    expect(textOf(binary.html)).toMatch(/This is a binary file \(29\d\.\d KiB\)/);
    expect(textOf(binary.html)).toContain('Stored with Git LFS');
    const large = await webGet(gh, '/alice/shown/-/blob/main/big.bin');
    expect(textOf(large.html)).toContain('This file is too large to show here');
    expect(large.html).toContain('href="/alice/shown/-/raw/main/big.bin?download=1"');
    const stray = await webGet(gh, '/alice/shown/-/blob/main/stray.txt');
    expect(textOf(stray.html)).toContain('Stored with Git LFS — object not uploaded');
    expect(textOf(stray.html)).toContain(`oid sha256:${strayOid}`);
    const downloaded = await fetch(`${gh.url}/alice/shown/-/raw/main/data.bin?download=1`);
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(data)).toBe(true);
  }, 60_000);

  it('when a repository with LFS files is downloaded as an archive, then the archive holds the pointers, as GitHub\'s do by default', async () => {
    const res = await fetch(`${gh.url}/api/repos/alice/shown/archive/main.tar.gz`);
    expect(res.status).toBe(200);
    const out = makeWorkdir();
    execFileSync('tar', ['-xzf', '-', '-C', out], { input: Buffer.from(await res.arrayBuffer()) });
    const [top] = readdirSync(out);
    expect(readFileSync(path.join(out, top!, 'notes.txt'), 'utf8')).toBe(`version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(notes)}\nsize ${Buffer.byteLength(notes)}\n`);
    expect(readFileSync(path.join(out, top!, 'big.bin')).length).toBeLessThan(200);
  });

  it('when a repository is deleted, then its LFS objects are removed with it', async () => {
    const created = await createRepo(gh, alice.token, 'doomed');
    const work = makeWorkdir();
    await git(work, 'init', '-q', '-b', 'main');
    await git(work, 'lfs', 'track', '*.bin');
    await commitFiles(work, { 'a.bin': randomBytes(50_000) }, 'one object');
    await git(work, 'push', '-q', remote('doomed'), 'main');
    const folder = path.join(gh.dataDir, 'lfs', sha256(created.id));
    expect(existsSync(folder)).toBe(true);
    expect((await api(gh, 'DELETE', '/api/repos/alice/doomed', { token: alice.token })).status).toBe(204);
    expect(existsSync(folder)).toBe(false);
    expect(readdirSync(path.join(gh.dataDir, 'lfs', 'deleted'))).toEqual([]);
  }, 60_000);
});
