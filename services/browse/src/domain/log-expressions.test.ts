import { describe, expect, it } from '@jest/globals';
import { AppError, notFound, validation } from '@githost/errors';
import { browseDeps, listCommits, type RepoRef } from './browse.js';
import { ObjectCache } from './object-cache.js';
import type { RepositoryReader } from './ports.js';

// docs/decisions/gitea-api.md#revision-expressions: the paged log's ref and `not` read as git reads them.
const M1 = '1'.repeat(40);
const M2 = '2'.repeat(40);
const T = '7'.repeat(40);
const raw = Buffer.from(`tree ${'e'.repeat(40)}\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n\nm\n`);
const repo: RepoRef = { repoId: 'r1', shard: 'default', requestId: 'q', defaultBranch: 'main' };
const page = { page: 1, path: '/api/repos/a/b/commits/x', rawQuery: 'page=1', filePath: '', not: '' };

function setup() {
  let main = M1;
  const resolved: string[] = [];
  const listed: string[] = [];
  const reader = {
    listRefs: () => Promise.resolve([{ name: 'refs/heads/main', target: main, peeled: '' }, { name: 'refs/tags/v1', target: T, peeled: '' }]),
    resolveCommit: (_ctx, hex) => Promise.resolve(hex),
    resolveCommitExpression: (_ctx, expression) => {
      resolved.push(expression);
      if (expression.startsWith('abcd')) return Promise.reject(validation('Ambiguous revision: abcd'));
      if (expression.endsWith('~99')) return Promise.reject(notFound('Revision not found'));
      return Promise.resolve(expression.slice(0, 1).repeat(39) + 'f');
    },
    listCommits: (_ctx, commit, _limit, _offset, _path, not) => {
      listed.push(`${commit.slice(0, 2)}${not ? ` ^${not.slice(0, 2)}` : ''}`);
      return Promise.resolve([{ oid: commit, raw }]);
    },
    countCommits: () => Promise.resolve(1),
  } as Partial<RepositoryReader> as RepositoryReader;
  const deps = browseDeps(reader, new ObjectCache(1 << 20), { maxBlobBytes: 1 << 20 });
  return { resolved, listed, deps, move: (to: string) => (main = to) };
}

const read = async (deps: ReturnType<typeof setup>['deps'], ref: string, not = '') => {
  const prepared = await listCommits(deps, repo, encodeURIComponent(ref), '10', { ...page, not });
  await prepared.body();
  return prepared;
};

describe('revision expressions in the paged log', () => {
  it('when main~1 is read twice, then git-storage resolves it once from main\'s commit; when main moves, it is resolved again from the new commit', async () => {
    const { resolved, listed, deps, move } = setup();
    await read(deps, 'main~1');
    await read(deps, 'main~1');
    move(M2);
    // The watch-less ref snapshots ask for refs again on every read: main is M2 now.
    await read(deps, 'main~1');
    expect(resolved).toEqual([`${M1}~1`, `${M2}~1`]);
    // The page of M1~1's commit is kept: the second read lists nothing.
    expect(listed).toEqual(['11', '22']);
  });

  it('when HEAD, a tag with steps and a `not` expression are read, then each resolves from its base', async () => {
    const { resolved, listed, deps } = setup();
    await read(deps, 'HEAD');
    await read(deps, 'v1^{}', 'HEAD^');
    expect(resolved).toEqual([`${T}^{}`, `${M1}^`]);
    expect(listed).toEqual(['11', '77 ^11']);
  });

  it('when an abbreviated id is read, then git-storage resolves it as given every time (it may become ambiguous)', async () => {
    const { resolved, deps } = setup();
    await read(deps, 'ABC12~2');
    await read(deps, 'abc12~2');
    expect(resolved).toEqual(['abc12~2', 'abc12~2']);
  });

  it('when an expression names nothing, is ambiguous or refused, then 404, 400 and 400, and a plain unknown name stays 404', async () => {
    const { deps } = setup();
    const failure = (ref: string, not = '') => read(deps, ref, not).then(() => undefined, (err: AppError) => `${err.kind} ${err.message}`);
    expect(await failure('main~99')).toBe('not_found Ref not found: main~99');
    expect(await failure('nope~1')).toBe('not_found Ref not found: nope~1');
    expect(await failure('abcd')).toBe('validation Ambiguous revision: abcd');
    expect(await failure('main@{1}')).toMatch(/^validation Unsupported revision expression: main@\{1\}/);
    expect(await failure('main', ':/fix')).toMatch(/^validation Unsupported revision expression: :\/fix/);
    expect(await failure('nope')).toBe('not_found Ref not found: nope');
  });
});
