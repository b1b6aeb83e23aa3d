import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestRepository, pushTo } from '@githost/git-storage/testing';
import { API, startHarness, type Harness } from './support/harness.js';
import { fastImport, git, treeEntriesOf } from './support/git.js';
import { SUBMODULE_SHA } from './support/fixture.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

interface TreeBody {
  ref: string;
  commit: string;
  path: string;
  entries: Array<{ name: string; path: string; type: string; mode: string; sha: string; size: number | null }>;
}

/** What `git ls-tree --long -z <commit>:<dir>` says, in the CONTRACT §5 shape. */
async function gitEntries(rev: string, dir: string): Promise<TreeBody['entries']> {
  return treeEntriesOf(await h.git('ls-tree', '--long', '-z', dir === '' ? rev : `${rev}:${dir}`), dir);
}

const revParse = async (rev: string) => (await h.git('rev-parse', '--verify', '--end-of-options', rev)).trim();

describe('GET tree', () => {
  it('when ref_and_path is empty, then the root of the default branch is listed as git lists it', async () => {
    const res = await h.get(`${API}/tree/`);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ ref: 'main', commit: await revParse('refs/heads/main'), path: '', entries: await gitEntries('refs/heads/main', '') });
  });

  it('when the request is HEAD, then the headers of the GET come without a body', async () => {
    const get = await h.get(`${API}/tree/main`);
    const head = await h.get(`${API}/tree/main`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(get.body.length));
    expect([head.headers['content-type'], head.headers.etag]).toEqual([get.headers['content-type'], get.headers.etag]);
    expect(get.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('when there is no trailing slash at all, then the default branch root is listed too', async () => {
    const res = await h.get(`${API}/tree`);
    expect((res.json() as TreeBody).commit).toBe(await revParse('refs/heads/main'));
  });

  it('when a subdirectory is named, then its entries carry full paths', async () => {
    const res = await h.get(`${API}/tree/main/src`);
    expect(res.json()).toEqual({ ref: 'main', commit: await revParse('refs/heads/main'), path: 'src', entries: await gitEntries('refs/heads/main', 'src') });
  });

  it('when a nested subdirectory is named, then it is listed', async () => {
    const body = (await h.get(`${API}/tree/main/src/dir`)).json() as TreeBody;
    expect(body.entries).toEqual(await gitEntries('refs/heads/main', 'src/dir'));
  });

  it('when the branch name has a slash, then the longest branch name is the ref', async () => {
    const body = (await h.get(`${API}/tree/feature/x`)).json() as TreeBody;
    expect([body.ref, body.commit, body.path]).toEqual(['feature/x', await revParse('refs/heads/feature/x'), '']);
    expect(body.entries.map((e) => e.name)).toContain('feature.txt');
  });

  it('when tag feature is a prefix of branch feature/x and the rest does not name the branch, then the tag is the ref', async () => {
    const body = (await h.get(`${API}/tree/feature/src`)).json() as TreeBody;
    expect([body.ref, body.commit, body.path]).toEqual(['feature', await revParse('refs/tags/feature'), 'src']);
    expect(body.entries).toEqual(await gitEntries('refs/tags/feature', 'src'));
  });

  it('when tag topic/v2 is longer than branch topic and matches, then the longer tag wins', async () => {
    const body = (await h.get(`${API}/tree/topic/v2/src`)).json() as TreeBody;
    expect([body.ref, body.commit, body.path]).toEqual(['topic/v2', await revParse('refs/tags/topic/v2'), 'src']);
  });

  it('when only branch topic matches, then the branch is the ref and the rest the path', async () => {
    const body = (await h.get(`${API}/tree/topic/src`)).json() as TreeBody;
    expect([body.ref, body.commit, body.path]).toEqual(['topic', await revParse('refs/heads/topic'), 'src']);
  });

  it('when a branch has three segments, then a path after it is split off', async () => {
    const body = (await h.get(`${API}/tree/release/2024/q1/src/dir`)).json() as TreeBody;
    expect([body.ref, body.commit, body.path]).toEqual(['release/2024/q1', await revParse('refs/heads/release/2024/q1'), 'src/dir']);
  });

  it('when a branch and a tag share a name, then the branch wins', async () => {
    const body = (await h.get(`${API}/tree/same`)).json() as TreeBody;
    expect(body.commit).toBe(await revParse('refs/heads/same'));
    expect(body.commit).not.toBe(await revParse('refs/tags/same'));
  });

  it('when an annotated tag is the ref, then the commit it peels to is listed', async () => {
    const body = (await h.get(`${API}/tree/v1.0`)).json() as TreeBody;
    expect([body.ref, body.commit]).toEqual(['v1.0', await revParse('refs/tags/v1.0^{commit}')]);
  });

  it('when an annotated tag with a slash is the ref, then it resolves too', async () => {
    const body = (await h.get(`${API}/tree/releases/v2/src`)).json() as TreeBody;
    expect([body.ref, body.commit, body.path]).toEqual(['releases/v2', await revParse('refs/tags/releases/v2^{commit}'), 'src']);
  });

  it('when the first segment is a full commit id, then that commit is listed and the answer is immutable', async () => {
    const sha = await revParse('refs/heads/main~3');
    const res = await h.get(`${API}/tree/${sha}/src`);
    expect(res.json()).toEqual({ ref: sha, commit: sha, path: 'src', entries: await gitEntries(sha, 'src') });
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('when a branch is the ref, then the answer must be revalidated', async () => {
    expect((await h.get(`${API}/tree/main`)).headers['cache-control']).toBe('no-cache');
  });

  it('when the full commit id does not exist, then 404 Ref not found', async () => {
    const res = await h.get(`${API}/tree/${'e'.repeat(40)}`);
    expect([res.status, res.json()]).toEqual([404, { error: `Ref not found: ${'e'.repeat(40)}` }]);
  });

  it('when a 40-hex id names a blob rather than a commit, then 404 Ref not found', async () => {
    const blob = await revParse('refs/heads/main:README.md');
    expect((await h.get(`${API}/tree/${blob}`)).json()).toEqual({ error: `Ref not found: ${blob}` });
  });

  it('when nothing names the first segment, then 404 Ref not found with that segment', async () => {
    const res = await h.get(`${API}/tree/nope/src`);
    expect([res.status, res.json()]).toEqual([404, { error: 'Ref not found: nope' }]);
  });

  it('when the path is a file, then 400 Not a directory', async () => {
    const res = await h.get(`${API}/tree/main/README.md`);
    expect([res.status, res.json()]).toEqual([400, { error: 'Not a directory: README.md' }]);
  });

  it('when the path is a symlink to a directory, then it is not followed: 400 Not a directory', async () => {
    const res = await h.get(`${API}/tree/main/link-to-dir`);
    expect([res.status, res.json()]).toEqual([400, { error: 'Not a directory: link-to-dir' }]);
  });

  it('when the path is a submodule, then 400 Not a directory', async () => {
    const res = await h.get(`${API}/tree/main/vendor/lib`);
    expect([res.status, res.json()]).toEqual([400, { error: 'Not a directory: vendor/lib' }]);
  });

  it('when the path does not exist, then 404 Path not found', async () => {
    const res = await h.get(`${API}/tree/main/src/missing`);
    expect([res.status, res.json()]).toEqual([404, { error: 'Path not found: src/missing' }]);
  });

  it('when a directory holds a submodule, then it is an entry of type commit with mode 160000 and no size', async () => {
    const body = (await h.get(`${API}/tree/main/vendor`)).json() as TreeBody;
    expect(body.entries).toEqual([{ name: 'lib', path: 'vendor/lib', type: 'commit', mode: '160000', sha: SUBMODULE_SHA, size: null }]);
  });

  it('when the root holds symlinks, then they are blob entries with mode 120000 and the target length as size', async () => {
    const body = (await h.get(`${API}/tree/main`)).json() as TreeBody;
    const link = body.entries.find((e) => e.name === 'link');
    expect(link).toEqual({ name: 'link', path: 'link', type: 'blob', mode: '120000', sha: await revParse('refs/heads/main:link'), size: 'README.md'.length });
  });

  it('when the root holds an executable, then its mode is 100755', async () => {
    const body = (await h.get(`${API}/tree/main/bin`)).json() as TreeBody;
    expect(body.entries[0]).toMatchObject({ name: 'run.sh', mode: '100755', type: 'blob' });
  });

  it('when a directory name has a space and is percent-encoded, then it is decoded once', async () => {
    const body = (await h.get(`${API}/tree/main/with%20space`)).json() as TreeBody;
    expect([body.path, body.entries]).toEqual(['with space', await gitEntries('refs/heads/main', 'with space')]);
  });

  it('when the branch name is percent-encoded with %2F, then it still names the branch', async () => {
    const body = (await h.get(`${API}/tree/feature%2Fx`)).json() as TreeBody;
    expect(body.ref).toBe('feature/x');
  });

  it('when there is a trailing slash, then it is ignored', async () => {
    const body = (await h.get(`${API}/tree/main/src/`)).json() as TreeBody;
    expect(body.path).toBe('src');
  });

  it('when the same tree is asked twice, then both answers are identical (second from the cache)', async () => {
    const a = await h.get(`${API}/tree/main/src`);
    const b = await h.get(`${API}/tree/main/src`);
    expect(b.body.equals(a.body)).toBe(true);
    expect(b.headers.etag).toBe(a.headers.etag);
  });
});

describe('a wide directory', () => {
  let src: string;
  let expected: TreeBody['entries'];
  const wide = (query = '') => h.get(`/api/repos/alice/wide/tree/main/wide${query}`, { repo: { id: 'browse-wide' } });
  beforeAll(async () => {
    src = await mkdtemp(path.join(tmpdir(), 'browse-wide-'));
    await git(src, 'init', '-q', '--bare');
    const lines = ['blob', 'mark :1', 'data 3', 'ab', '', 'commit refs/heads/main', 'committer A <a@example.com> 0 +0000', 'data 4', 'wide'];
    for (let i = 0; i < 5000; i++) lines.push(`M 100644 :1 wide/f${i}.txt`);
    lines.push('', 'done', '');
    await fastImport(src, Buffer.from(lines.join('\n')));
    await createTestRepository(h.storage, 'browse-wide', 'main');
    await pushTo(h.storage, 'browse-wide', src, 'refs/heads/main');
    expected = (await git(src, 'ls-tree', '--long', '-z', 'main:wide')).split('\0').filter(Boolean).map((rec) => {
      const [meta, name] = rec.split('\t') as [string, string];
      const [mode, type, sha, size] = meta.trim().split(/ +/) as [string, string, string, string];
      return { name, path: `wide/${name}`, type, mode, sha, size: Number(size) };
    });
  });
  afterAll(async () => {
    await rm(src, { recursive: true, force: true });
  });

  it('when a directory holds 5,000 entries, then all come back in git order with git ids and sizes', async () => {
    const res = await wide();
    const body = res.json() as TreeBody;
    expect([res.status, body.entries.length]).toEqual([200, 5000]);
    expect(body.entries).toEqual(expected);
    expect(res.headers['x-total-count']).toBeUndefined();
    // Cold, more than one piece of git-storage's: streamed, without a length
    // (docs/decisions/big-pages.md#the-whole-tree-streamed). Warm, the kept bytes leave
    // as pieces (uncopied): the length must still be exact.
    expect(res.headers['content-length']).toBeUndefined();
    const again = await wide();
    expect(again.body.equals(res.body)).toBe(true);
    expect(again.headers['content-length']).toBe(String(again.body.length));
  });

  it('when ?limit=1000 is asked, then the same shape with the first 1,000 entries in git order, and X-Total-Count 5000', async () => {
    const full = await wide();
    const res = await wide('?limit=1000');
    const body = res.json() as TreeBody;
    expect(res.status).toBe(200);
    expect(body).toEqual({ ...(full.json() as TreeBody), entries: expected.slice(0, 1000) });
    expect(res.headers['x-total-count']).toBe('5000');
    expect(res.headers['content-length']).toBe(String(res.body.length));
    expect(res.headers.etag).not.toBe(full.headers.etag);
    const again = await wide('?limit=1000');
    expect([again.body.equals(res.body), again.headers['x-total-count'], again.headers.etag]).toEqual([true, '5000', res.headers.etag]);
  });

  it('when ?limit is 1 or more than the directory holds, then that many entries or all of them, with the count', async () => {
    const one = await wide('?limit=1');
    expect([(one.json() as TreeBody).entries, one.headers['x-total-count']]).toEqual([expected.slice(0, 1), '5000']);
    const src2 = await h.get(`${API}/tree/main/src?limit=1000`);
    const all = await h.get(`${API}/tree/main/src`);
    expect(src2.json()).toEqual(all.json());
    expect(src2.headers['x-total-count']).toBe(String((all.json() as TreeBody).entries.length));
  });

  it('when ?limit is not an integer from 1 to 1000, then 400 naming the limit', async () => {
    for (const q of ['?limit=0', '?limit=1001', '?limit=abc', '?limit=5.5', '?limit=', '?limit=1&limit=2', '?limit=-1']) {
      const res = await wide(q);
      expect([q, res.status, (res.json() as { error: string }).error]).toEqual([q, 400, 'limit must be an integer from 1 to 1000']);
    }
  });
});
