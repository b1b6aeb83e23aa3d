import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { encodeIdentity, type Identity, type Permission } from '@githost/identity';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, pushTo, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

const ID = 'repo-archive';
let s: TestStorage;
let work: string;
let head: string;
let tagged: string;

function headers(permission: Permission, priv = false): Record<string, string> {
  const identity: Identity = {
    principal: { user_id: 'u-bob', username: 'bob', email: 'bob@example.com', is_admin: false },
    repo: { id: ID, owner: 'alice', name: 'demo', default_branch: 'main', private: priv, shard: 'default', permission, owner_id: 'u-alice' },
    request_id: 'req-archive',
    issued_at: Date.now(),
  };
  return encodeIdentity(identity, s.secret);
}

async function get(path: string, h: Record<string, string>): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(`http://127.0.0.1:${s.httpPort}${path}`, { headers: h });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** What `git archive` of the same commit, with the same prefix and format, gives in a clone. */
function gitArchive(format: string, prefix: string, commit: string): Buffer {
  return execFileSync('git', ['archive', `--format=${format}`, `--prefix=${prefix}/`, commit], { cwd: work, maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env.PATH, HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
}

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, ID);
  work = await makeWorkdir();
  await writeFiles(work, { 'README.md': '# demo\n', 'src/a.ts': 'export const a = 1;\n', 'bin/run.sh': '#!/bin/sh\necho hi\n' });
  execFileSync('chmod', ['+x', `${work}/bin/run.sh`]);
  tagged = await commitAll(work, 'first', { date: '2024-01-02T03:04:05+00:00' });
  await git(work, 'tag', '-a', '-m', 'release', 'v1.0');
  await writeFiles(work, { 'big.bin': randomBytes(3 * 1024 * 1024) });
  head = await commitAll(work, 'second', { date: '2024-02-03T04:05:06+00:00' });
  await git(work, 'branch', 'feature/x', head);
  await pushTo(s, ID, work, 'main', 'feature/x', 'v1.0');
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

describe('GET /api/repos/{owner}/{repo}/archive/{ref}', () => {
  it('when a branch is asked for as .tar.gz and .zip, then the bytes are exactly what git archive of its commit gives, with the right headers', async () => {
    for (const [format, type] of [
      ['tar.gz', 'application/gzip'],
      ['zip', 'application/zip'],
    ] as const) {
      const res = await get(`/api/repos/alice/demo/archive/main.${format}`, headers('read'));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="demo-main.${format}"`);
      expect(res.headers.get('etag')).toBe(`"${head}.${format}"`);
      expect(res.headers.get('cache-control')).toBe('public, no-cache');
      expect(res.body.equals(gitArchive(format, 'demo-main', head))).toBe(true);
    }
  });

  it('when the ref has slashes, is an annotated tag or a full commit id, then it resolves like browse and the prefix replaces slashes by dashes', async () => {
    const branch = await get('/api/repos/alice/demo/archive/feature/x.tar.gz', headers('read'));
    expect([branch.status, branch.headers.get('content-disposition')]).toEqual([200, 'attachment; filename="demo-feature-x.tar.gz"']);
    expect(branch.body.equals(gitArchive('tar.gz', 'demo-feature-x', head))).toBe(true);
    const tag = await get('/api/repos/alice/demo/archive/v1.0.zip', headers('read'));
    expect([tag.status, tag.headers.get('etag')]).toEqual([200, `"${tagged}.zip"`]);
    expect(tag.body.equals(gitArchive('zip', 'demo-v1.0', tagged))).toBe(true);
    const sha = await get(`/api/repos/alice/demo/archive/${tagged}.tar.gz`, headers('read'));
    expect(sha.status).toBe(200);
    expect(sha.body.equals(gitArchive('tar.gz', `demo-${tagged}`, tagged))).toBe(true);
  });

  it('when If-None-Match carries the ETag, then 304 with no body; a private repository answers Cache-Control private', async () => {
    const res = await get('/api/repos/alice/demo/archive/main.tar.gz', { ...headers('read', true), 'if-none-match': `W/"x", "${head}.tar.gz"` });
    expect(res.status).toBe(304);
    expect(res.body.length).toBe(0);
    expect(res.headers.get('etag')).toBe(`"${head}.tar.gz"`);
    expect(res.headers.get('cache-control')).toBe('private');
    const other = await get('/api/repos/alice/demo/archive/main.zip', { ...headers('read'), 'if-none-match': `"${head}.tar.gz"` });
    expect(other.status).toBe(200);
  });

  it('when the ref names nothing, or is a revision expression, then 404 Ref not found', async () => {
    for (const ref of ['nope', 'main~1', 'HEAD', tagged.slice(0, 12), '0'.repeat(40)]) {
      const res = await get(`/api/repos/alice/demo/archive/${ref}.tar.gz`, headers('read'));
      expect([res.status, JSON.parse(res.body.toString())]).toEqual([404, { error: `Ref not found: ${ref}` }]);
    }
  });

  it('when the caller cannot read the repository or the URL names another one, then 404 Not found', async () => {
    const none = await get('/api/repos/alice/demo/archive/main.tar.gz', headers('none', true));
    expect([none.status, JSON.parse(none.body.toString())]).toEqual([404, { error: 'Not found' }]);
    const other = await get('/api/repos/alice/other/archive/main.tar.gz', headers('read'));
    expect(other.status).toBe(404);
  });

  it('when the client goes away mid-download, then git archive is killed', async () => {
    const gitDir = s.repoPath(ID);
    const archivers = () =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
            return cmd.includes('archive') && cmd.includes(`--git-dir=${gitDir}`);
          } catch {
            return false;
          }
        });
    // zip stores the random blob uncompressed-sized: several MB git writes while we read nothing
    await new Promise<void>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: s.httpPort, path: '/api/repos/alice/demo/archive/main.zip', headers: headers('read') }, (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    });
    const deadline = Date.now() + 5000;
    while (archivers().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(archivers()).toEqual([]);
  });
});
