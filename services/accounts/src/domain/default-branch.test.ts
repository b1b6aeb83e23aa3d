import { describe, expect, it } from '@jest/globals';
import { unavailable } from '@githost/errors';
import { defaultBranchAfterFirstPush } from './default-branch.js';
import { adoptPushedBranches } from './repositories.js';
import type { RepositoryChanges, RepositoryStorage, RepositoryStore, UserStore } from './ports.js';
import type { Repository } from './types.js';

describe('the default branch after a first push (accounts README "Default branch")', () => {
  it('when the push brought the configured default, then it stays', () => {
    expect(defaultBranchAfterFirstPush('main', ['feature', 'main'])).toBe('main');
    expect(defaultBranchAfterFirstPush('trunk', ['master', 'trunk'])).toBe('trunk');
  });

  it('when it did not, then main, else master, else the first pushed branch', () => {
    expect(defaultBranchAfterFirstPush('main', ['master'])).toBe('master');
    expect(defaultBranchAfterFirstPush('trunk', ['feature', 'master', 'main'])).toBe('main');
    expect(defaultBranchAfterFirstPush('main', ['feature', 'master'])).toBe('master');
    expect(defaultBranchAfterFirstPush('main', ['dev', 'feature'])).toBe('dev');
  });

  it('when a pushed name could not be a default branch, then it is passed over; with none left the configured one stays', () => {
    expect(defaultBranchAfterFirstPush('main', ['HEAD', '-x', 'dev'])).toBe('dev');
    expect(defaultBranchAfterFirstPush('main', ['b'.repeat(256)])).toBe('main');
    expect(defaultBranchAfterFirstPush('main', [])).toBe('main');
  });
});

const T = '2026-01-01T00:00:00.000Z';

function setup(opts: { failCommit?: boolean } = {}) {
  const state: { row: Repository } = { row: { id: 'r1', owner_id: 'u1', owner: 'alice', name: 'git', private: false, default_branch: 'main', description: null, allow_tag_changes: false, shard: 'default', created_at: T } };
  const calls: string[] = [];
  const store = {
    byId: async (id: string) => (id === state.row.id ? state.row : null),
    async updateWith(id: string, changes: RepositoryChanges, during: (before: Repository) => Promise<void>) {
      if (id !== state.row.id) return null;
      const before = state.row;
      await during(before);
      if (opts.failCommit) throw unavailable('database gone');
      state.row = { ...before, ...changes };
      return { before, after: state.row };
    },
  } as unknown as RepositoryStore;
  const storage: RepositoryStorage = {
    createRepository: async () => undefined,
    removeRepository: async () => undefined,
    setDefaultBranch: async (_shard, id, branch) => void calls.push(`head ${id} ${branch}`),
    listBranches: async () => [],
  };
  return { state, calls, deps: { repositories: store, users: {} as UserStore, storage, placement: { shards: ['default'] } as never } };
}

describe('adoptPushedBranches', () => {
  it('when a first push brought master only, then the row says master and HEAD follows; asked again, nothing more changes', async () => {
    const { state, calls, deps } = setup();
    expect((await adoptPushedBranches(deps, 'r1', ['master'])).default_branch).toBe('master');
    expect([state.row.default_branch, calls]).toEqual(['master', ['head r1 master']]);
    expect((await adoptPushedBranches(deps, 'r1', ['master'])).default_branch).toBe('master');
    expect(calls).toEqual(['head r1 master']);
  });

  it('when the push brought the configured default, then neither the row nor HEAD is touched', async () => {
    const { state, calls, deps } = setup();
    expect((await adoptPushedBranches(deps, 'r1', ['dev', 'main'])).default_branch).toBe('main');
    expect([state.row.default_branch, calls]).toEqual(['main', []]);
  });

  it('when the row cannot be committed, then HEAD is put back and the call fails, so it can be asked again', async () => {
    const { state, calls, deps } = setup({ failCommit: true });
    await expect(adoptPushedBranches(deps, 'r1', ['master'])).rejects.toThrow('database gone');
    expect([state.row.default_branch, calls]).toEqual(['main', ['head r1 master', 'head r1 main']]);
  });

  it('when the repository is unknown, then 404 Repository not found', async () => {
    await expect(adoptPushedBranches(setup().deps, 'nope', ['master'])).rejects.toThrow('Repository not found');
  });
});
