import { describe, expect, it } from '@jest/globals';
import { notFound } from '@githost/errors';
import { browseDeps, getBlob, getCommit, getTree, listCommits, type JsonBody, type RepoRef, type TreeBody } from './browse.js';
import { ObjectCache } from './object-cache.js';
import type { RepositoryReader } from './ports.js';

// docs/decisions/gateway-serves-warm-reads.md#cold-reads: what a cold read by full commit id asks git-storage.
const COMMIT = 'c'.repeat(40);
const TAG = 'a'.repeat(40);
const TREE = 'e'.repeat(40);
const BLOB = 'b'.repeat(40);
const RAW_COMMIT = Buffer.from(`tree ${TREE}\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n\nm\n`);
const repo: RepoRef = { repoId: 'r1', shard: 'default', requestId: 'q', defaultBranch: 'main' };
const text = (body: JsonBody | TreeBody): string => {
  if (typeof body === 'object' && 'streamed' in body) throw new Error('a one-entry tree is not streamed');
  return typeof body === 'string' ? body : Buffer.concat(body.map((p) => Buffer.from(p))).toString();
};

async function* pieces(...list: Buffer[]): AsyncGenerator<Buffer> {
  yield* list;
}

function fakeReader(calls: string[]): RepositoryReader {
  const commitOf = (id: string) => (id === COMMIT || id === TAG ? COMMIT : undefined);
  return {
    listRefs: () => Promise.resolve([]),
    resolveCommit: (_ctx, oid) => {
      calls.push(`resolveCommit ${oid.slice(0, 1)}`);
      const c = commitOf(oid);
      return c ? Promise.resolve(c) : Promise.reject(notFound(`Commit not found: ${oid}`));
    },
    // With requireCommit (a `!` in the call's name) only a commit's own id is read, as git-storage does.
    // What explainMissing reads, the parent directory of a missing path.
    readTree: (_ctx, commit) => {
      calls.push(`readTree ${commit.slice(0, 1)}`);
      return commitOf(commit) ? Promise.resolve({ treeOid: TREE, entries: Buffer.from(`100644 blob ${BLOB}       3\tf\0`), count: 1 }) : Promise.reject(notFound('Path not found: '));
    },
    openTree: (_ctx, commit, _path, requireCommit) => {
      calls.push(`openTree ${commit.slice(0, 1)}${requireCommit ? '!' : ''}`);
      if (requireCommit && commit !== COMMIT) return Promise.reject(notFound(`Commit not found: ${commit}`));
      const first = Buffer.from(`100644 blob ${BLOB}       3\tf\0`);
      return commitOf(commit) ? Promise.resolve({ treeOid: TREE, count: 1, first, rest: pieces(), cancel: () => undefined }) : Promise.reject(notFound('Path not found: '));
    },
    openBlob: (_ctx, commit, path, _max, requireCommit) => {
      calls.push(`openBlob ${commit.slice(0, 1)}${requireCommit ? '!' : ''}`);
      if (requireCommit && commit !== COMMIT) return Promise.reject(notFound(`Commit not found: ${commit}`));
      if (!commitOf(commit) || path !== 'f') return Promise.reject(notFound(`Path not found: ${path}`));
      async function* chunks() {
        yield Buffer.from('hi\n');
      }
      return Promise.resolve({ oid: BLOB, size: 3, mode: '100644', tooLarge: false, chunks: chunks(), cancel: () => undefined });
    },
    listCommits: (_ctx, commit) => {
      calls.push(`listCommits ${commit.slice(0, 1)}`);
      return commitOf(commit) ? Promise.resolve([{ oid: COMMIT, raw: RAW_COMMIT }]) : Promise.reject(notFound(`Commit not found: ${commit}`));
    },
    readCommit: (_ctx, revision) => {
      calls.push(`readCommit ${revision.slice(0, 1)}`);
      return commitOf(revision) ? Promise.resolve({ oid: COMMIT, raw: RAW_COMMIT }) : Promise.reject(notFound(`Commit not found: ${revision}`));
    },
  } as Partial<RepositoryReader> as RepositoryReader;
}

function setup() {
  const calls: string[] = [];
  return { calls, deps: browseDeps(fakeReader(calls), new ObjectCache(1 << 20), { maxBlobBytes: 1 << 20 }) };
}

describe('cold reads by full commit id', () => {
  it('when a commit no request confirmed is read, then one ReadCommit both confirms and reads it', async () => {
    const { calls, deps } = setup();
    const answer = await getCommit(deps, repo, COMMIT);
    expect(JSON.parse(text(await answer.body())).sha).toBe(COMMIT);
    expect(calls).toEqual(['readCommit c']);
  });

  it('when the tree of a new commit is read, then one ReadTreeStream both confirms the id and reads it', async () => {
    const { calls, deps } = setup();
    const answer = await getTree(deps, repo, COMMIT);
    const body = JSON.parse(text(await answer.body()));
    expect(body).toMatchObject({ ref: COMMIT, commit: COMMIT, path: '' });
    expect(body.entries.map((e: { name: string }) => e.name)).toEqual(['f']);
    expect(calls).toEqual(['openTree c!']);
  });

  it('when a blob of a new commit is read, then one ReadBlob both confirms the id and reads it', async () => {
    const { calls, deps } = setup();
    const answer = await getBlob(deps, repo, `${COMMIT}/f`);
    expect(JSON.parse(text(await answer.body()))).toEqual({ ref: COMMIT, commit: COMMIT, path: 'f', sha: BLOB, size: 3, content: 'hi\n', encoding: 'utf-8' });
    expect(calls).toEqual(['openBlob c!']);
    calls.length = 0;
    // Confirmed: another path of the same commit is read without asking again.
    await expect(getBlob(deps, repo, `${COMMIT}/g`).then((a) => a.body())).rejects.toMatchObject({ kind: 'not_found', message: 'Path not found: g' });
    expect(calls[0]).toBe('openBlob c');
  });

  it('when the log below a new commit is read, then one ListCommits both confirms the id and reads the page', async () => {
    const { calls, deps } = setup();
    const answer = await listCommits(deps, repo, COMMIT, '50');
    expect(JSON.parse(text(await answer.body())).commits.map((c: { sha: string }) => c.sha)).toEqual([COMMIT]);
    expect(calls).toEqual(['listCommits c']);
  });

  it('when the log is asked below a tag\'s id, then the page, which starts at the commit, does not confirm it and the tag is resolved first', async () => {
    const { calls, deps } = setup();
    await (await listCommits(deps, repo, TAG, '50')).body();
    expect(calls).toEqual(['listCommits a', 'resolveCommit a', 'listCommits c']);
  });

  it('when the log is asked below an id that names no commit here, then the answer is 404 Ref not found', async () => {
    const { calls, deps } = setup();
    await expect(listCommits(deps, repo, TREE, '50')).rejects.toMatchObject({ kind: 'not_found', message: `Ref not found: ${TREE}` });
    expect(calls).toEqual(['listCommits e', 'resolveCommit e']);
  });

  it('when the id names no commit here, then the read refuses it and the answer is 404 Ref not found', async () => {
    const { calls, deps } = setup();
    await expect(getTree(deps, repo, TREE)).rejects.toMatchObject({ kind: 'not_found', message: `Ref not found: ${TREE}` });
    await expect(getBlob(deps, repo, `${TREE}/f`)).rejects.toMatchObject({ kind: 'not_found', message: `Ref not found: ${TREE}` });
    expect(calls).toEqual(['openTree e!', 'resolveCommit e', 'openBlob e!', 'resolveCommit e']);
  });

  it('when the id is a tag peeling to a commit, then it is resolved and the tree is read for that commit', async () => {
    const { calls, deps } = setup();
    const answer = await getTree(deps, repo, TAG);
    expect(JSON.parse(text(await answer.body()))).toMatchObject({ ref: TAG, commit: COMMIT });
    expect(calls).toEqual(['openTree a!', 'resolveCommit a', 'openTree c']);
  });

  it('when the path is missing under a new commit, then the answer is the one a confirmed read gives', async () => {
    const { calls, deps } = setup();
    const answer = await getBlob(deps, repo, `${COMMIT}/g`);
    await expect(answer.body()).rejects.toMatchObject({ kind: 'not_found', message: 'Path not found: g' });
    expect(calls.slice(0, 3)).toEqual(['openBlob c!', 'resolveCommit c', 'openBlob c']);
  });

  it('when a confirmed commit is read again, then nothing is asked early', async () => {
    const { calls, deps } = setup();
    await (await getBlob(deps, repo, `${COMMIT}/f`)).body();
    calls.length = 0;
    await (await getBlob(deps, repo, `${COMMIT}/f`)).body();
    expect(calls).toEqual([]);
  });
});
