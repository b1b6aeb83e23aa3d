import { describe, expect, it } from '@jest/globals';
import { notFound } from '@githost/errors';
import { browseDeps, getBlob, getCommit, getTree, type JsonBody, type RepoRef } from './browse.js';
import { ObjectCache } from './object-cache.js';
import type { RepositoryReader } from './ports.js';

// docs/decisions/gateway-serves-warm-reads.md#cold-reads: what a cold read by full commit id asks git-storage.
const COMMIT = 'c'.repeat(40);
const TAG = 'a'.repeat(40);
const TREE = 'e'.repeat(40);
const BLOB = 'b'.repeat(40);
const RAW_COMMIT = Buffer.from(`tree ${TREE}\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n\nm\n`);
const repo: RepoRef = { repoId: 'r1', shard: 'default', requestId: 'q', defaultBranch: 'main' };
const text = (body: JsonBody): string => (typeof body === 'string' ? body : Buffer.concat(body.map((p) => Buffer.from(p))).toString());

function fakeReader(calls: string[]): RepositoryReader {
  const commitOf = (id: string) => (id === COMMIT || id === TAG ? COMMIT : undefined);
  return {
    listRefs: () => Promise.resolve([]),
    resolveCommit: (_ctx, oid) => {
      calls.push(`resolveCommit ${oid.slice(0, 1)}`);
      const c = commitOf(oid);
      return c ? Promise.resolve(c) : Promise.reject(notFound(`Commit not found: ${oid}`));
    },
    readTree: (_ctx, commit) => {
      calls.push(`readTree ${commit.slice(0, 1)}`);
      return commitOf(commit) ? Promise.resolve({ treeOid: TREE, entries: Buffer.from(`100644 blob ${BLOB}       3\tf\0`) }) : Promise.reject(notFound('Path not found: '));
    },
    openBlob: (_ctx, commit) => {
      calls.push(`openBlob ${commit.slice(0, 1)}`);
      if (!commitOf(commit)) return Promise.reject(notFound('Path not found: f'));
      async function* chunks() {
        yield Buffer.from('hi\n');
      }
      return Promise.resolve({ oid: BLOB, size: 3, mode: '100644', tooLarge: false, chunks: chunks(), cancel: () => undefined });
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

  it('when the tree of a new commit is read, then its listing is asked beside the confirmation, not after it', async () => {
    const { calls, deps } = setup();
    const answer = await getTree(deps, repo, COMMIT);
    const body = JSON.parse(text(await answer.body()));
    expect(body.entries.map((e: { name: string }) => e.name)).toEqual(['f']);
    expect(calls.sort()).toEqual(['readTree c', 'resolveCommit c']);
  });

  it('when the id names no commit here, then the early read is dropped and the answer is 404 Ref not found', async () => {
    const { calls, deps } = setup();
    await expect(getTree(deps, repo, TREE)).rejects.toMatchObject({ kind: 'not_found', message: `Ref not found: ${TREE}` });
    await expect(getBlob(deps, repo, `${TREE}/f`)).rejects.toMatchObject({ kind: 'not_found', message: `Ref not found: ${TREE}` });
    expect(calls.filter((c) => c.startsWith('resolveCommit'))).toHaveLength(2);
  });

  it('when the id is a tag peeling to a commit, then the tree is read again for that commit', async () => {
    const { calls, deps } = setup();
    const answer = await getTree(deps, repo, TAG);
    await answer.body();
    expect(calls.sort()).toEqual(['readTree a', 'readTree c', 'resolveCommit a']);
  });

  it('when a confirmed commit is read again, then nothing is asked early', async () => {
    const { calls, deps } = setup();
    await (await getBlob(deps, repo, `${COMMIT}/f`)).body();
    calls.length = 0;
    await (await getBlob(deps, repo, `${COMMIT}/f`)).body();
    expect(calls).toEqual([]);
  });
});
