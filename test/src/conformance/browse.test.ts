import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { addCollaborator, api, createRepo, createUser, git, type TestGithost, type TestUser } from '../support/index.js';
import { History } from './history.js';
import { commitRecord, pushHistory, startConformanceGithost } from './setup.js';

/**
 * Seed §4 "Browsing" (rules 1-7), §2 browse shapes, §8 limits, CONTRACT §4/§5/§9 (browse), checked
 * from outside through the gateway against histories built with exact bytes, modes and dates.
 */
// The machine is shared; slow, not wrong, must not fail a test.
jest.setTimeout(60_000);

const T0 = 1_600_000_000; // 2020-09-13T12:26:40Z
const HEX_UNKNOWN = '0123456789abcdef0123456789abcdef01234567';
const EDGE = Buffer.concat([Buffer.alloc(7999, 0x61), Buffer.from([0])]); // zero byte at index 7999: inside the scan
const LATE = Buffer.concat([Buffer.alloc(8000, 0x61), Buffer.from([0])]); // zero byte at index 8000: outside the scan
const SMALL_BIN = Buffer.from([0x00, 0x01, 0x02, 0xff]);

describe('seed §4 browsing, through the gateway', () => {
  let gh: TestGithost;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let work: string;
  const sha = { main: '', featureX: '', deep: '', long: '', c1: '', c2: '', c3: '', tagObject: '' };
  const base = '/api/repos/alice/browse';

  beforeAll(async () => {
    gh = await startConformanceGithost();
    alice = await createUser(gh, 'alice');
    bob = await createUser(gh, 'bob');
    carol = await createUser(gh, 'carol');
    await createRepo(gh, alice.token, 'browse');

    const h = new History();
    const c1 = h.commit({
      ref: 'refs/heads/main', message: 'first\n', date: T0, tz: '+0200',
      files: {
        'README.md': '# browse\n',
        'src/app.txt': 'hello\n',
        'src/lib/util.ts': 'export {};\n',
        'dir with space/file.txt': 'spaced\n',
        'bin/small.bin': SMALL_BIN,
        'bin/edge.bin': EDGE,
        'bin/late.bin': LATE,
        'utf8.txt': 'héllo ✓\n',
        'empty.txt': '',
        'run.sh': { content: '#!/bin/sh\necho hi\n', mode: '100755' },
        'link': { content: 'src/app.txt', mode: '120000' },
        'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
        'sub': { gitlink: 'b'.repeat(40) },
      },
    });
    const c2 = h.commit({ ref: 'refs/heads/main', message: 'second\n\nbody line\n', date: T0 + 60, files: { 'src/app.txt': 'hello v2\n' } });
    h.commit({ ref: 'refs/heads/feature/x', from: c1, message: 'feature x\n', date: T0 + 120, files: { 'src/app.txt': 'feature x\n' } });
    h.commit({ ref: 'refs/heads/feature/deep/x', from: c1, message: 'deep\n', date: T0 + 180, files: { 'deep.txt': 'deep\n' } });
    h.ref('refs/tags/feature', c1); // seed rule 2: tag `feature` vs branch `feature/x`
    h.ref('refs/heads/dup', c2);
    h.ref('refs/tags/dup', c1); // CONTRACT §9: branch wins over a tag of the same name
    h.annotatedTag('v1.0', c1, 'release 1.0\n', T0 + 200);
    h.commit({ ref: 'refs/heads/odd', from: c1, message: 'no newline at the end', date: T0 + 300, tz: '-0530', author: { name: 'Zoë Ærø', email: 'zoe@example.com' }, files: { 'odd.txt': 'odd\n' } });
    h.ref('refs/heads/rel/1', c2);
    h.ref('refs/tags/rel/1/final', c1); // longest match across kinds: the tag is longer
    h.ref('refs/heads/pct%2Fname', c1); // a literal `%2F` in a branch name
    for (let i = 0; i < 105; i++) {
      h.commit({ ref: 'refs/heads/long', from: i === 0 ? c2 : undefined, message: `long ${i}\n`, date: T0 + 1000 + i, files: { 'counter.txt': `${i}\n` } });
    }
    work = await pushHistory(gh, alice, 'alice', 'browse', h);
    sha.main = await git(work, 'rev-parse', 'refs/heads/main');
    sha.featureX = await git(work, 'rev-parse', 'refs/heads/feature/x');
    sha.deep = await git(work, 'rev-parse', 'refs/heads/feature/deep/x');
    sha.long = await git(work, 'rev-parse', 'refs/heads/long');
    sha.c1 = await git(work, 'rev-parse', 'refs/tags/feature');
    sha.c2 = sha.main;
    sha.c3 = sha.featureX;
    sha.tagObject = await git(work, 'rev-parse', 'refs/tags/v1.0');
    // seed rule 2 orders branch names before the 40-hex rule: a branch NAMED like c1's sha
    // (pointing at c2) must win over the commit c1.
    await git(work, 'push', '-q', 'origin', `${sha.c2}:refs/heads/${sha.c1}`);
  }, 180_000);
  afterAll(async () => {
    await gh?.stop();
  });

  async function lsTree(treeish: string): Promise<unknown[]> {
    const out = await git(work, 'ls-tree', '-l', treeish);
    return out.split('\n').map((line) => {
      const [meta = '', name = ''] = line.split('\t');
      const [mode, type, objectSha, size] = meta.split(/\s+/);
      const path = treeish.includes(':') && treeish.split(':')[1] ? `${treeish.split(':')[1]}/${name}` : name;
      return { name, path, type, mode, sha: objectSha, size: size === '-' ? null : Number(size) };
    });
  }

  describe('rule 2 and 3: splitting ref_and_path, tree response', () => {
    it('when ref_and_path is empty, then ref is the default branch, path is empty and the root entries are git\'s (CONTRACT §5)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ref: 'main', commit: sha.main, path: '', entries: await lsTree(sha.main) });
    });

    it('when the path names a directory, then its entries with full paths', async () => {
      const res = await api(gh, 'GET', `${base}/tree/main/src`);
      expect(res.body).toEqual({ ref: 'main', commit: sha.main, path: 'src', entries: await lsTree(`${sha.main}:src`) });
    });

    it('when the path has a trailing slash, then the empty segment is ignored (CONTRACT §9)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/main/src/`);
      expect(res.status).toBe(200);
      expect(res.body.path).toBe('src');
    });

    it('when a branch name contains slashes, then the longest matching run wins over the shorter tag `feature`', async () => {
      const res = await api(gh, 'GET', `${base}/tree/feature/x/src`);
      expect([res.status, res.body.ref, res.body.commit, res.body.path]).toEqual([200, 'feature/x', sha.c3, 'src']);
    });

    it('when only the tag `feature` matches, then it is the ref and the rest is the path', async () => {
      const res = await api(gh, 'GET', `${base}/tree/feature/src`);
      expect([res.status, res.body.ref, res.body.commit, res.body.path]).toEqual([200, 'feature', sha.c1, 'src']);
    });

    it('when the slash inside a branch name is percent-encoded, then it is decoded before splitting (CONTRACT §9)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/feature%2Fx/src`);
      expect([res.status, res.body.ref, res.body.commit, res.body.path]).toEqual([200, 'feature/x', sha.c3, 'src']);
    });

    it('when the root holds a submodule, then its entry is type commit, mode 160000, size null (CONTRACT §5)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/main`);
      expect(res.body.entries.find((e: { name: string }) => e.name === 'sub')).toEqual({ name: 'sub', path: 'sub', type: 'commit', mode: '160000', sha: 'b'.repeat(40), size: null });
    });

    it('when a tag name is a longer run than a branch name, then the tag wins (longest match, not kind)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/rel/1/final/src`);
      expect([res.status, res.body.ref, res.body.commit, res.body.path]).toEqual([200, 'rel/1/final', sha.c1, 'src']);
      const shorter = await api(gh, 'GET', `${base}/tree/rel/1/src`);
      expect([shorter.status, shorter.body.ref, shorter.body.commit, shorter.body.path]).toEqual([200, 'rel/1', sha.c2, 'src']);
    });

    it('when the remainder is percent-encoded twice, then it is decoded only once (CONTRACT §9)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/pct%252Fname/src`);
      expect([res.status, res.body.ref, res.body.commit, res.body.path]).toEqual([200, 'pct%2Fname', sha.c1, 'src']);
    });

    it('when the path has doubled or trailing slashes, then the empty segments are ignored', async () => {
      const tree = await api(gh, 'GET', `${base}/tree/main//src`);
      expect([tree.status, tree.body.path]).toEqual([200, 'src']);
      const blob = await api(gh, 'GET', `${base}/blob/main/README.md/`);
      expect([blob.status, blob.body.path, blob.body.content]).toEqual([200, 'README.md', '# browse\n']);
    });

    it('when a three-segment branch name is the whole remainder, then path is empty', async () => {
      const res = await api(gh, 'GET', `${base}/tree/feature/deep/x`);
      expect([res.status, res.body.ref, res.body.commit, res.body.path]).toEqual([200, 'feature/deep/x', sha.deep, '']);
    });

    it('when a branch and a tag share the name, then the branch wins (CONTRACT §9)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/dup`);
      expect([res.status, res.body.ref, res.body.commit]).toEqual([200, 'dup', sha.c2]);
    });

    it('when a branch is named like a commit sha, then the branch is matched before the 40-hex rule', async () => {
      const res = await api(gh, 'GET', `${base}/tree/${sha.c1}`);
      expect([res.status, res.body.ref, res.body.commit]).toEqual([200, sha.c1, sha.c2]);
    });

    it('when no name matches and the first segment is 40 lowercase hex, then it is the commit and the rest the path', async () => {
      const res = await api(gh, 'GET', `${base}/tree/${sha.c3}/src`);
      expect(res.body).toEqual({ ref: sha.c3, commit: sha.c3, path: 'src', entries: await lsTree(`${sha.c3}:src`) });
    });

    it('when the 40-hex ref is no commit, then 404 Ref not found (CONTRACT §9)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/${HEX_UNKNOWN}/src`);
      expect([res.status, res.body]).toEqual([404, { error: `Ref not found: ${HEX_UNKNOWN}` }]);
      const blob = await git(work, 'rev-parse', `${sha.main}:README.md`);
      const onBlob = await api(gh, 'GET', `${base}/tree/${blob}`);
      expect([onBlob.status, onBlob.body]).toEqual([404, { error: `Ref not found: ${blob}` }]);
    });

    it('when nothing matches, then the first segment is the ref and an unknown one is 404 Ref not found (CONTRACT §4)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/nosuch/src`);
      expect([res.status, res.body]).toEqual([404, { error: 'Ref not found: nosuch' }]);
    });

    it('when the path is percent-encoded, then it is decoded once (CONTRACT §9)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/main/dir%20with%20space`);
      expect([res.status, res.body.path, res.body.entries.map((e: { path: string }) => e.path)]).toEqual([200, 'dir with space', ['dir with space/file.txt']]);
    });

    it('when the path does not exist, then 404 Path not found (CONTRACT §4)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/main/nope/deeper`);
      expect([res.status, res.body]).toEqual([404, { error: 'Path not found: nope/deeper' }]);
    });

    it('when tree is asked for a file, then 400 Not a directory (CONTRACT §4)', async () => {
      const res = await api(gh, 'GET', `${base}/tree/main/README.md`);
      expect([res.status, res.body]).toEqual([400, { error: 'Not a directory: README.md' }]);
    });

    it('when the ref or path looks like a git option, then it is only ever a name', async () => {
      const ref = await api(gh, 'GET', `${base}/tree/--output=x`);
      expect([ref.status, ref.body]).toEqual([404, { error: 'Ref not found: --output=x' }]);
      const log = await api(gh, 'GET', `${base}/commits/--all`);
      expect([log.status, log.body]).toEqual([404, { error: 'Ref not found: --all' }]);
      const path = await api(gh, 'GET', `${base}/blob/main/--help`);
      expect([path.status, path.body]).toEqual([404, { error: 'Path not found: --help' }]);
    });

    it('when the path climbs with encoded dot segments, then nothing outside the tree is read', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/%2e%2e/%2e%2e/%2e%2e/etc/passwd`);
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain('root:');
    });
  });

  describe('rule 4: blob', () => {
    it('when a text file is read, then exactly ref, commit, path, sha, size, content, encoding utf-8', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/README.md`);
      expect([res.status, res.body]).toEqual([200, {
        ref: 'main', commit: sha.main, path: 'README.md', sha: await git(work, 'rev-parse', `${sha.main}:README.md`), size: 9, content: '# browse\n', encoding: 'utf-8',
      }]);
    });

    it('when the path is empty, then 400 Path required', async () => {
      for (const p of ['blob/main', 'blob/main/', 'blob/']) {
        const res = await api(gh, 'GET', `${base}/${p}`);
        expect([p, res.status, res.body]).toEqual([p, 400, { error: 'Path required' }]);
      }
    });

    it('when the text has multi-byte characters, then size counts bytes, not characters', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/utf8.txt`);
      expect([res.body.size, res.body.content, res.body.encoding]).toEqual([Buffer.byteLength('héllo ✓\n'), 'héllo ✓\n', 'utf-8']);
    });

    it('when the content has a zero byte, then it is base64 with the raw byte size', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/bin/small.bin`);
      expect([res.body.size, res.body.content, res.body.encoding]).toEqual([4, SMALL_BIN.toString('base64'), 'base64']);
    });

    it('when the only zero byte is the 8000th byte, then it is binary (§8: 8000 bytes scanned)', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/bin/edge.bin`);
      expect([res.body.size, res.body.encoding, res.body.content]).toEqual([8000, 'base64', EDGE.toString('base64')]);
    });

    it('when the only zero byte is past the first 8000 bytes, then it is text', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/bin/late.bin`);
      expect([res.body.size, res.body.encoding, res.body.content]).toEqual([8001, 'utf-8', LATE.toString('utf8')]);
    });

    it('when the file is empty, then it is text with size 0', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/empty.txt`);
      expect([res.status, res.body.size, res.body.content, res.body.encoding]).toEqual([200, 0, '', 'utf-8']);
    });

    it('when blob names a directory, then 400 Not a file (CONTRACT §4)', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/src`);
      expect([res.status, res.body]).toEqual([400, { error: 'Not a file: src' }]);
    });

    it('when blob names a symlink, then its target as text (CONTRACT §9)', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/link`);
      expect([res.status, res.body.content, res.body.encoding, res.body.size]).toEqual([200, 'src/app.txt', 'utf-8', 11]);
    });

    it('when the bytes are not valid UTF-8 but have no zero byte, then still text, decoded lossily (CONTRACT §9)', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/latin1.txt`);
      expect([res.status, res.body.size, res.body.content, res.body.encoding]).toEqual([200, 5, 'caf\uFFFD\n', 'utf-8']);
    });

    it('when blob names a submodule entry, then 400 Not a file (CONTRACT §9)', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/sub`);
      expect([res.status, res.body]).toEqual([400, { error: 'Not a file: sub' }]);
    });

    it('when the ref is an annotated tag, then commit is the tagged commit and the old content is read', async () => {
      const res = await api(gh, 'GET', `${base}/blob/v1.0/src/app.txt`);
      expect([res.status, res.body.ref, res.body.commit, res.body.content]).toEqual([200, 'v1.0', sha.c1, 'hello\n']);
    });

    it('when raw is asked, then the exact bytes come back (CONTRACT §8)', async () => {
      const res = await fetch(`${gh.url}${base}/raw/main/bin/small.bin`);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(SMALL_BIN);
      expect(res.headers.get('content-type')).toBeTruthy();
    });
  });

  describe('rule 5: commits', () => {
    it('when the ref is empty, then the default branch, echoed as ref, with CONTRACT §5 records in git log order', async () => {
      const res = await api(gh, 'GET', `${base}/commits/`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ref: 'main', commits: [await commitRecord(work, sha.c2), await commitRecord(work, sha.c1)] });
    });

    it('when records are read, then messages are exact and dates keep their offsets', async () => {
      const res = await api(gh, 'GET', `${base}/commits/main`);
      const [second, first] = res.body.commits;
      expect(second.message).toBe('second\n\nbody line\n');
      expect(second.author).toEqual({ name: 'Conformance Author', email: 'conformance@example.com', date: '2020-09-13T12:27:40+00:00' });
      expect(first.committer.date).toBe('2020-09-13T14:26:40+02:00');
      expect(first.parents).toEqual([]);
    });

    it('when no limit is given, then 20 commits, the first 20 of git log', async () => {
      const res = await api(gh, 'GET', `${base}/commits/long`);
      const expected = (await git(work, 'log', '--format=%H', '-n', '20', sha.long)).split('\n');
      expect([res.body.ref, res.body.commits.map((c: { sha: string }) => c.sha)]).toEqual(['long', expected]);
    });

    it('when limit is given, then at most that many', async () => {
      const res = await api(gh, 'GET', `${base}/commits/long?limit=5`);
      expect(res.body.commits.map((c: { sha: string }) => c.sha)).toEqual((await git(work, 'log', '--format=%H', '-n', '5', sha.long)).split('\n'));
    });

    it('when limit is over 100, then it is lowered to 100', async () => {
      const res = await api(gh, 'GET', `${base}/commits/long?limit=1000`);
      expect(res.body.commits).toHaveLength(100);
    });

    it('when limit is exactly 100, then 100', async () => {
      const res = await api(gh, 'GET', `${base}/commits/long?limit=100`);
      expect(res.body.commits).toHaveLength(100);
    });

    it('when limit is below 1 or not an integer, then the default 20 (CONTRACT §9)', async () => {
      for (const limit of ['0', '-3', 'abc']) {
        const res = await api(gh, 'GET', `${base}/commits/long?limit=${limit}`);
        expect([limit, res.status, res.body.commits?.length]).toEqual([limit, 200, 20]);
      }
    });

    it('when the ref contains slashes, then the whole remainder is the ref', async () => {
      const res = await api(gh, 'GET', `${base}/commits/feature/deep/x`);
      expect([res.status, res.body.ref, res.body.commits.map((c: { sha: string }) => c.sha)]).toEqual([200, 'feature/deep/x', [sha.deep, sha.c1]]);
    });

    it('when the ref is a sha or a tag, then ref echoes it as requested', async () => {
      const bySha = await api(gh, 'GET', `${base}/commits/${sha.c3}?limit=1`);
      expect([bySha.status, bySha.body.ref, bySha.body.commits.map((c: { sha: string }) => c.sha)]).toEqual([200, sha.c3, [sha.c3]]);
      const byTag = await api(gh, 'GET', `${base}/commits/v1.0`);
      expect([byTag.status, byTag.body.ref, byTag.body.commits.map((c: { sha: string }) => c.sha)]).toEqual([200, 'v1.0', [sha.c1]]);
    });

    it('when the ref is unknown, then 404 Ref not found', async () => {
      const res = await api(gh, 'GET', `${base}/commits/nosuch`);
      expect([res.status, res.body]).toEqual([404, { error: 'Ref not found: nosuch' }]);
    });
  });

  describe('rule 6: commit detail', () => {
    it('when a full sha is asked, then its CONTRACT §5 record with tree and parents', async () => {
      const res = await api(gh, 'GET', `${base}/commit/${sha.c3}`);
      expect([res.status, res.body]).toEqual([200, await commitRecord(work, sha.c3)]);
      expect(res.body.parents).toEqual([sha.c1]);
    });

    it('when a message has no trailing newline, a negative offset and a non-ASCII author, then all are kept exactly (CONTRACT §9)', async () => {
      const odd = await git(work, 'rev-parse', 'refs/heads/odd');
      const res = await api(gh, 'GET', `${base}/commit/${odd}`);
      expect([res.status, res.body.message, res.body.author, res.body.committer.date]).toEqual([
        200, 'no newline at the end', { name: 'Zoë Ærø', email: 'zoe@example.com', date: '2020-09-13T07:01:40-05:30' }, '2020-09-13T07:01:40-05:30',
      ]);
    });

    it('when an abbreviated sha is asked, then the full record (CONTRACT §9)', async () => {
      const res = await api(gh, 'GET', `${base}/commit/${sha.c3.slice(0, 10)}`);
      expect([res.status, res.body.sha]).toEqual([200, sha.c3]);
    });

    it('when the sha is unknown, then 404 Commit not found', async () => {
      const res = await api(gh, 'GET', `${base}/commit/${HEX_UNKNOWN}`);
      expect([res.status, res.body]).toEqual([404, { error: `Commit not found: ${HEX_UNKNOWN}` }]);
    });

    it('when the sha names a blob or a tree, not a commit, then 404 Commit not found', async () => {
      const blob = await git(work, 'rev-parse', `${sha.main}:README.md`);
      const tree = await git(work, 'rev-parse', `${sha.main}^{tree}`);
      for (const id of [blob, tree]) {
        const res = await api(gh, 'GET', `${base}/commit/${id}`);
        expect([res.status, res.body]).toEqual([404, { error: `Commit not found: ${id}` }]);
      }
    });

    it('when {sha} is a branch name, a revision expression or an option, then 404 Commit not found (hex only, CONTRACT §9)', async () => {
      for (const id of ['main', 'HEAD', '--all', `${sha.c3}~1`]) {
        const res = await api(gh, 'GET', `${base}/commit/${encodeURIComponent(id)}`);
        expect([id, res.status, res.body]).toEqual([id, 404, { error: `Commit not found: ${id}` }]);
      }
    });
  });

  describe('rule 7: branches, and tags (CONTRACT §8)', () => {
    it('when branches are listed, then every refs/heads/ name with sha and isDefault, and default_branch', async () => {
      const res = await api(gh, 'GET', `${base}/branches`);
      const heads = (await git(work, 'ls-remote', '--heads', 'origin')).split('\n').map((l) => {
        const [s, ref = ''] = l.split('\t');
        const name = ref.replace(/^refs\/heads\//, '');
        return { name, sha: s, isDefault: name === 'main' };
      });
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['branches', 'default_branch']);
      expect(res.body.default_branch).toBe('main');
      expect([...res.body.branches].sort(byName)).toEqual(heads.sort(byName));
    });

    it('when tags are listed, then name and commit sha, plus tag_sha for an annotated tag', async () => {
      const res = await api(gh, 'GET', `${base}/tags`);
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      expect([...res.body.tags].sort(byName)).toEqual([
        { name: 'dup', sha: sha.c1 },
        { name: 'feature', sha: sha.c1 },
        { name: 'rel/1/final', sha: sha.c1 },
        { name: 'v1.0', sha: sha.c1, tag_sha: sha.tagObject },
      ]);
    });
  });

  describe('other default branches and empty repositories', () => {
    it('when the default branch is not main, then empty refs resolve to it and only it is isDefault', async () => {
      await createRepo(gh, alice.token, 'trunked', { default_branch: 'trunk' });
      const h = new History();
      const t = h.commit({ ref: 'refs/heads/trunk', message: 'trunk\n', date: T0, files: { 'a.txt': 'a\n' } });
      h.commit({ ref: 'refs/heads/main', from: t, message: 'main\n', date: T0 + 1, files: { 'b.txt': 'b\n' } });
      const w = await pushHistory(gh, alice, 'alice', 'trunked', h);
      const trunk = await git(w, 'rev-parse', 'refs/heads/trunk');
      const tree = await api(gh, 'GET', '/api/repos/alice/trunked/tree/');
      expect([tree.body.ref, tree.body.commit]).toEqual(['trunk', trunk]);
      const commits = await api(gh, 'GET', '/api/repos/alice/trunked/commits/');
      expect([commits.body.ref, commits.body.commits.map((c: { sha: string }) => c.sha)]).toEqual(['trunk', [trunk]]);
      const branches = await api(gh, 'GET', '/api/repos/alice/trunked/branches');
      expect(branches.body.default_branch).toBe('trunk');
      expect(Object.fromEntries(branches.body.branches.map((b: { name: string; isDefault: boolean }) => [b.name, b.isDefault]))).toEqual({ trunk: true, main: false });
    });

    it('when the repository is empty, then no branches and 404 Ref not found at the default branch (CONTRACT §9)', async () => {
      await createRepo(gh, alice.token, 'empty');
      const branches = await api(gh, 'GET', '/api/repos/alice/empty/branches');
      expect([branches.status, branches.body]).toEqual([200, { branches: [], default_branch: 'main' }]);
      for (const p of ['tree/', 'commits/', 'blob/main/x.txt']) {
        const res = await api(gh, 'GET', `/api/repos/alice/empty/${p}`);
        expect([p, res.status, res.body]).toEqual([p, 404, { error: 'Ref not found: main' }]);
      }
    });
  });

  describe('rule 1: read access first', () => {
    const paths = ['tree/', 'tree/main/src', 'blob/main/a.txt', 'commits/', 'branches', 'tags', 'raw/main/a.txt'];
    let privateSha: string;

    beforeAll(async () => {
      await createRepo(gh, alice.token, 'hidden', { private: true });
      await addCollaborator(gh, alice.token, 'alice', 'hidden', 'carol', 'read');
      const h = new History();
      h.commit({ ref: 'refs/heads/main', message: 'secret\n', date: T0, files: { 'a.txt': 'secret\n', 'src/b.txt': 'b\n' } });
      const w = await pushHistory(gh, alice, 'alice', 'hidden', h);
      privateSha = await git(w, 'rev-parse', 'HEAD');
    });

    it('when an anonymous caller browses a private repository, then 404 Not found on every browse endpoint', async () => {
      for (const p of [...paths, `commit/${privateSha}`]) {
        const res = await api(gh, 'GET', `/api/repos/alice/hidden/${p}`);
        expect([p, res.status, res.body]).toEqual([p, 404, { error: 'Not found' }]);
      }
    });

    it('when a signed-in user without access browses a private repository, then 404 Not found', async () => {
      for (const p of [...paths, `commit/${privateSha}`]) {
        const res = await api(gh, 'GET', `/api/repos/alice/hidden/${p}`, { token: bob.token });
        expect([p, res.status, res.body]).toEqual([p, 404, { error: 'Not found' }]);
      }
    });

    it('when the read check fails, then it answers before the blob path rule (400 Path required is not reached)', async () => {
      const res = await api(gh, 'GET', '/api/repos/alice/hidden/blob/main');
      expect([res.status, res.body]).toEqual([404, { error: 'Not found' }]);
    });

    it('when a read collaborator browses, then 200', async () => {
      for (const p of [...paths, `commit/${privateSha}`]) {
        const res = await api(gh, 'GET', `/api/repos/alice/hidden/${p}`, { token: carol.token });
        expect([p, res.status]).toEqual([p, 200]);
      }
    });

    it('when the repository does not exist, then 404 Not found (CONTRACT §4)', async () => {
      for (const p of paths) {
        const res = await api(gh, 'GET', `/api/repos/alice/nothere/${p}`);
        expect([p, res.status, res.body]).toEqual([p, 404, { error: 'Not found' }]);
      }
    });

    it('when anyone browses a public repository anonymously, then 200', async () => {
      const res = await api(gh, 'GET', `${base}/blob/main/README.md`);
      expect([res.status, res.body.content]).toEqual([200, '# browse\n']);
    });
  });
});
