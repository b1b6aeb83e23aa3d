import { describe, expect, it } from '@jest/globals';
import { links } from '../http/links.js';
import { blobBytes, contentsOf, giteaCommitOf, giteaCommitWithChangesOf, giteaTagOf, gitEntryOf, treeResponseOf, type TreeEntry } from './map-content.js';

const at = links('https://git.example.com', 'ann', 'demo');
const SHA = 'a'.repeat(40);
const COMMIT = 'c'.repeat(40);
const file: TreeEntry = { name: 'app.ts', path: 'src/app.ts', type: 'blob', mode: '100644', sha: SHA, size: 5 };

describe('contentsOf', () => {
  it('when a file is read, then Gitea\'s ContentsResponse with base64 content and its links under the ref', () => {
    expect(contentsOf(at, file, 'feature/x', COMMIT, Buffer.from('hello'))).toEqual({
      name: 'app.ts',
      path: 'src/app.ts',
      sha: SHA,
      last_commit_sha: COMMIT,
      type: 'file',
      size: 5,
      encoding: 'base64',
      content: 'aGVsbG8=',
      target: null,
      url: 'https://git.example.com/api/v1/repos/ann/demo/contents/src/app.ts?ref=feature%2Fx',
      html_url: 'https://git.example.com/ann/demo/-/blob/feature/x/src/app.ts',
      git_url: `https://git.example.com/api/v1/repos/ann/demo/git/blobs/${SHA}`,
      download_url: 'https://git.example.com/ann/demo/-/raw/feature/x/src/app.ts',
      submodule_git_url: null,
      _links: {
        self: 'https://git.example.com/api/v1/repos/ann/demo/contents/src/app.ts?ref=feature%2Fx',
        git: `https://git.example.com/api/v1/repos/ann/demo/git/blobs/${SHA}`,
        html: 'https://git.example.com/ann/demo/-/blob/feature/x/src/app.ts',
      },
    });
  });

  it('when a directory, a symlink or a submodule is listed, then Gitea\'s types, no content in a listing', () => {
    const dir = contentsOf(at, { ...file, name: 'lib', path: 'src/lib', type: 'tree', mode: '040000', size: null }, 'main', COMMIT);
    expect([dir.type, dir.size, dir.content, dir.encoding, dir.download_url, dir.html_url]).toEqual(['dir', 0, null, null, null, 'https://git.example.com/ann/demo/-/tree/main/src/lib']);
    const link = contentsOf(at, { ...file, mode: '120000' }, 'main', COMMIT, Buffer.from('../README.md'));
    expect([link.type, link.target]).toEqual(['symlink', '../README.md']);
    const sub = contentsOf(at, { ...file, type: 'commit', mode: '160000', size: null }, 'main', COMMIT);
    expect([sub.type, sub.git_url, sub.download_url]).toEqual(['submodule', null, null]);
  });

  it('when githost sends a blob as text or base64, then the same bytes', () => {
    expect(blobBytes({ content: 'héllo', encoding: 'utf-8' })).toEqual(Buffer.from('héllo'));
    expect(blobBytes({ content: 'AAH/', encoding: 'base64' })).toEqual(Buffer.from([0, 1, 255]));
  });
});

describe('trees, commits and tags', () => {
  it('when a tree is paged, then Gitea\'s GitTreeResponse with truncated and total_count', () => {
    const entries = ['a', 'b', 'c'].map((name) => gitEntryOf(at, { ...file, name, path: name }, ''));
    expect(treeResponseOf(at, SHA, entries, 2, 2)).toEqual({ sha: SHA, url: `https://git.example.com/api/v1/repos/ann/demo/git/trees/${SHA}`, tree: [entries[2]], truncated: false, page: 2, total_count: 3 });
    expect(treeResponseOf(at, SHA, entries, 1, 2).truncated).toBe(true);
    expect(entries[0]).toEqual({ path: 'a', mode: '100644', type: 'blob', size: 5, sha: SHA, url: `https://git.example.com/api/v1/repos/ann/demo/git/blobs/${SHA}` });
  });

  it('when a commit is shown, then Gitea\'s Commit with the git author and no Gitea user', () => {
    const sig = { name: 'Ann', email: 'ann@example.com', date: '2026-11-01T10:00:00+01:00' };
    const commit = giteaCommitOf(at, { sha: COMMIT, tree: SHA, parents: [SHA], author: sig, committer: sig, message: 'hello\n' });
    expect(commit).toMatchObject({
      sha: COMMIT,
      created: sig.date,
      html_url: `https://git.example.com/ann/demo/-/commit/${COMMIT}`,
      commit: { author: sig, committer: sig, message: 'hello\n', tree: { sha: SHA } },
      author: null,
      committer: null,
      parents: [{ sha: SHA, url: `https://git.example.com/api/v1/repos/ann/demo/git/commits/${SHA}` }],
    });
  });

  it('when a commit is shown with stat, files and verification, then Gitea\'s stats and files; each off is null, and a commit githost did not compute shows null', () => {
    const sig = { name: 'Ann', email: 'ann@example.com', date: '2026-11-01T10:00:00+01:00' };
    const withChanges = { sha: COMMIT, tree: SHA, parents: [SHA], author: sig, committer: sig, message: 'm', stats: { total: 3, additions: 2, deletions: 1 }, files: [{ filename: 'a.txt', status: 'added' as const }, { filename: 'b.txt', status: 'removed' as const }], files_truncated: false };
    const all = giteaCommitWithChangesOf(at, withChanges, { stat: true, files: true, verification: true });
    expect({ stats: all.stats, files: all.files, verification: all.commit.verification }).toEqual({
      stats: { total: 3, additions: 2, deletions: 1 },
      files: [{ filename: 'a.txt', status: 'added' }, { filename: 'b.txt', status: 'removed' }],
      verification: { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' },
    });
    const none = giteaCommitWithChangesOf(at, withChanges, { stat: false, files: false, verification: false });
    expect({ stats: none.stats, files: none.files, verification: none.commit.verification }).toEqual({ stats: null, files: null, verification: null });
    const uncomputed = giteaCommitWithChangesOf(at, { ...withChanges, stats: undefined, files: undefined, files_truncated: undefined }, { stat: true, files: true, verification: true });
    expect({ stats: uncomputed.stats, files: uncomputed.files }).toEqual({ stats: null, files: null });
  });

  it('when a tag is listed, then Gitea\'s Tag with archive links; an annotated tag\'s id is the tag object', () => {
    expect(giteaTagOf(at, 'https://git.example.com', 'ann', 'demo', { name: 'v1.0', sha: COMMIT, tag_sha: SHA }, '2026-11-01T10:00:00Z')).toEqual({
      name: 'v1.0',
      message: '',
      id: SHA,
      commit: { url: `https://git.example.com/api/v1/repos/ann/demo/git/commits/${COMMIT}`, sha: COMMIT, created: '2026-11-01T10:00:00Z' },
      zipball_url: 'https://git.example.com/api/repos/ann/demo/archive/v1.0.zip',
      tarball_url: 'https://git.example.com/api/repos/ann/demo/archive/v1.0.tar.gz',
    });
  });
});
