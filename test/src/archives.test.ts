import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { assertMatchesOpenApi, commitFiles, createRepo, createUser, git, makeWorkdir, pushUrl, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/** Archives through the gateway, byte for byte against `git archive` of the same commit (docs/decisions/archives.md). */
let gh: TestGithost;
let alice: TestUser;
let bob: TestUser;
let work: string;
let head: string;

async function download(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(gh.url + path, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type');
  assertMatchesOpenApi('GET', path, res.status, type, type?.includes('json') ? JSON.parse(body.toString('utf8')) : body.length === 0 ? null : body.toString('base64'));
  return { status: res.status, headers: res.headers, body };
}

/** `git archive` run directly on the clone: what the endpoint must give, byte for byte. */
function gitArchive(format: 'tar.gz' | 'zip', prefix: string, commit: string): Buffer {
  return execFileSync('git', ['archive', `--format=${format}`, `--prefix=${prefix}/`, commit], { cwd: work, maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env.PATH, HOME: work, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
}

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  bob = await createUser(gh, 'bob');
  await createRepo(gh, alice.token, 'arch');
  await createRepo(gh, alice.token, 'secret', { private: true });
  work = makeWorkdir();
  await commitFiles(work, { 'README.md': '# arch\n', 'src/index.ts': 'export const x = 1;\n', 'data/blob.bin': randomBytes(512 * 1024) }, 'first');
  head = await commitFiles(work, { 'src/index.ts': 'export const x = 2;\n' }, 'second');
  await git(work, 'branch', 'release/1.0');
  for (const repo of ['arch', 'secret']) await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', repo), 'main', 'release/1.0');
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

describe('GET /api/repos/{owner}/{repo}/archive/{ref}', () => {
  it('when anyone downloads a public branch as .tar.gz and .zip, then the bytes equal git archive of its commit with the {repo}-{ref}/ prefix', async () => {
    for (const [format, type] of [
      ['tar.gz', 'application/gzip'],
      ['zip', 'application/zip'],
    ] as const) {
      const res = await download(`/api/repos/alice/arch/archive/main.${format}`);
      expect([res.status, res.headers.get('content-type'), res.headers.get('content-disposition')]).toEqual([200, type, `attachment; filename="arch-main.${format}"`]);
      expect(res.headers.get('etag')).toBe(`"${head}.${format}"`);
      expect(res.body.equals(gitArchive(format, 'arch-main', head))).toBe(true);
    }
  });

  it('when the ref has a slash, then it resolves and the prefix and file name replace it with a dash', async () => {
    const res = await download('/api/repos/alice/arch/archive/release/1.0.tar.gz');
    expect([res.status, res.headers.get('content-disposition')]).toEqual([200, 'attachment; filename="arch-release-1.0.tar.gz"']);
    expect(res.body.equals(gitArchive('tar.gz', 'arch-release-1.0', head))).toBe(true);
  });

  it('when If-None-Match carries the ETag, then 304 with no body', async () => {
    const res = await download('/api/repos/alice/arch/archive/main.zip', { 'if-none-match': `"${head}.zip"` });
    expect([res.status, res.body.length]).toEqual([304, 0]);
  });

  it('when the ref does not exist, then 404 Ref not found', async () => {
    const res = await download('/api/repos/alice/arch/archive/nope.tar.gz');
    expect([res.status, JSON.parse(res.body.toString())]).toEqual([404, { error: 'Ref not found: nope' }]);
  });

  it('when a stranger or nobody asks for a private repository, then 404; its owner gets it with Cache-Control private', async () => {
    for (const headers of [{}, { authorization: `Bearer ${bob.token}` }] as Record<string, string>[]) {
      const res = await download('/api/repos/alice/secret/archive/main.tar.gz', headers);
      expect(res.status).toBe(404);
    }
    const own = await download('/api/repos/alice/secret/archive/main.tar.gz', { authorization: `Bearer ${alice.token}` });
    expect([own.status, own.headers.get('cache-control')]).toEqual([200, 'private']);
    expect(own.body.equals(gitArchive('tar.gz', 'secret-main', head))).toBe(true);
  });
});
