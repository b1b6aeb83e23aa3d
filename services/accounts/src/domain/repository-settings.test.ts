import { describe, expect, it } from '@jest/globals';
import { unavailable } from '@githost/errors';
import { deleteRepository, updateRepository } from './repositories.js';
import { parseUpdateRepository } from './input.js';
import { parsePage, lastPageOf } from './paging.js';
import type { DeletionEvent, RepositoryChanges, RepositoryStorage, RepositoryStore, UserStore } from './ports.js';
import type { Caller, Repository } from './types.js';

const T = '2026-01-01T00:00:00.000Z';
const owner: Caller = { user_id: 'u1', username: 'alice', is_admin: false };
const users = {} as UserStore;

function repo(): Repository {
  return { id: 'r1', owner_id: 'u1', owner: 'alice', name: 'demo', private: false, default_branch: 'main', description: null, allow_tag_changes: false, shard: 'default', created_at: T };
}

/** One repository in memory whose transactions commit, or fail at commit when told. */
function memory(commit: 'ok' | Error = 'ok') {
  const state = { row: repo() as Repository | null };
  const store = {
    async updateWith(id: string, changes: RepositoryChanges, during: (before: Repository) => Promise<void>) {
      if (!state.row || id !== state.row.id) return null;
      const before = state.row;
      const after = { ...before, ...changes };
      await during(before);
      if (commit !== 'ok') throw commit;
      state.row = after;
      return { before, after };
    },
    async deleteWith(id: string, during: (r: Repository) => Promise<void>) {
      if (!state.row || id !== state.row.id) return false;
      await during(state.row);
      if (commit !== 'ok') throw commit;
      state.row = null;
      return true;
    },
    byId: async (id: string) => (state.row?.id === id ? state.row : null),
  } as unknown as RepositoryStore;
  return { state, store };
}

function storage(opts: { branches?: string[]; failRemove?: boolean; failHead?: boolean; announce?: boolean } = {}) {
  const calls: string[] = [];
  const s: RepositoryStorage = {
    createRepository: async () => undefined,
    async removeRepository(shard, id, _ctx, deletion?: DeletionEvent) {
      calls.push(`remove ${id} ${JSON.stringify(deletion)}`);
      if (opts.failRemove) throw unavailable('disk gone');
    },
    async setDefaultBranch(_shard, id, branch) {
      calls.push(`head ${id} ${branch}`);
      if (opts.failHead) throw unavailable('disk gone');
    },
    listBranches: async () => opts.branches ?? [],
    ...(opts.announce
      ? {
          async announceChange(shard: string, id: string) {
            calls.push(`announce ${id} on ${shard}`);
          },
        }
      : {}),
  };
  return { calls, s };
}

const admin = { id: 'r1', permission: 'admin' as const };

describe('updating a repository', () => {
  it('when the default branch moves to an existing branch, then HEAD follows inside the transaction', async () => {
    const { state, store } = memory();
    const st = storage({ branches: ['main', 'develop'] });
    const updated = await updateRepository({ repositories: store, users, storage: st.s, placement: { shards: ['default'] } }, admin, { default_branch: 'develop', description: 'x' });
    expect(updated).toMatchObject({ default_branch: 'develop', description: 'x' });
    expect(state.row?.default_branch).toBe('develop');
    expect(st.calls).toEqual(['head r1 develop']);
  });

  it('when a repository is updated, then the change is announced to git-storage\'s watchers after the row changed, before the update returns; a refused one is not', async () => {
    const { state, store } = memory();
    const st = storage({ branches: ['main'], announce: true });
    const deps = { repositories: store, users, storage: st.s, placement: { shards: ['default'] } };
    await updateRepository(deps, admin, { description: 'Now described' });
    expect(state.row?.description).toBe('Now described');
    expect(st.calls).toEqual([`announce r1 on ${state.row!.shard}`]);
    await expect(updateRepository(deps, admin, { default_branch: 'nope' })).rejects.toMatchObject({ kind: 'validation' });
    expect(st.calls).toHaveLength(1);
  });

  it('when the branch does not exist but others do, then 400 and nothing changes', async () => {
    const { state, store } = memory();
    const st = storage({ branches: ['main'] });
    await expect(updateRepository({ repositories: store, users, storage: st.s, placement: { shards: ['default'] } }, admin, { default_branch: 'nope' })).rejects.toMatchObject({ kind: 'validation', message: 'default_branch must name an existing branch: nope' });
    expect(state.row?.default_branch).toBe('main');
    expect(st.calls).toEqual([]);
  });

  it('when the repository has no branch yet, then any valid name may become the default', async () => {
    const { store } = memory();
    const st = storage({ branches: [] });
    expect((await updateRepository({ repositories: store, users, storage: st.s, placement: { shards: ['default'] } }, admin, { default_branch: 'trunk' })).default_branch).toBe('trunk');
  });

  it('when the commit fails after HEAD moved, then HEAD is put back and the error surfaces', async () => {
    const { state, store } = memory(unavailable('Database unavailable'));
    const st = storage({ branches: ['main', 'develop'] });
    await expect(updateRepository({ repositories: store, users, storage: st.s, placement: { shards: ['default'] } }, admin, { default_branch: 'develop' })).rejects.toThrow('Database unavailable');
    expect(st.calls).toEqual(['head r1 develop', 'head r1 main']);
    expect(state.row?.default_branch).toBe('main');
  });

  it('when git-storage cannot move HEAD, then the row is unchanged', async () => {
    const { state, store } = memory();
    const st = storage({ branches: ['main', 'develop'], failHead: true });
    await expect(updateRepository({ repositories: store, users, storage: st.s, placement: { shards: ['default'] } }, admin, { default_branch: 'develop', private: true })).rejects.toThrow('disk gone');
    expect(state.row).toMatchObject({ default_branch: 'main', private: false });
  });

  it('when a writer or reader updates, then 403; without read access, 404', async () => {
    const deps = { repositories: memory().store, users, storage: storage().s, placement: { shards: ['default'] } };
    await expect(updateRepository(deps, { id: 'r1', permission: 'write' }, { private: true })).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(updateRepository(deps, { id: 'r1', permission: 'none' }, { private: true })).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
  });
});

describe('deleting a repository', () => {
  it('when git-storage removes it, then the row goes and the event context names the deleter', async () => {
    const { state, store } = memory();
    const st = storage();
    await deleteRepository({ repositories: store, users, storage: st.s, placement: { shards: ['default'] } }, admin, { user_id: 'u9', username: 'root', is_admin: true });
    expect(state.row).toBeNull();
    expect(st.calls).toEqual(['remove r1 {"owner":"alice","name":"demo","pusher":"root"}']);
  });

  it('when RemoveRepository fails, then the row stays and the error surfaces', async () => {
    const { state, store } = memory();
    const st = storage({ failRemove: true });
    await expect(deleteRepository({ repositories: store, users, storage: st.s, placement: { shards: ['default'] } }, admin, owner)).rejects.toThrow('disk gone');
    expect(state.row?.id).toBe('r1');
  });
});

describe('parseUpdateRepository', () => {
  it('when fields are given, then exactly those change; null description clears it', () => {
    expect(parseUpdateRepository({ description: null, private: true, default_branch: 'dev', allow_tag_changes: false, name: 'ignored' })).toEqual({ description: null, private: true, default_branch: 'dev', allow_tag_changes: false });
  });

  it.each([
    [{}, 'Nothing to change: give at least one of description, private, default_branch, allow_tag_changes'],
    [{ name: 'x' }, 'Nothing to change: give at least one of description, private, default_branch, allow_tag_changes'],
    [{ private: 'yes' }, 'private must be true or false'],
    [{ allow_tag_changes: 1 }, 'allow_tag_changes must be true or false'],
    [{ description: 5 }, 'description must be a string'],
    [{ description: 'x'.repeat(1001) }, 'description must be at most 1000 characters'],
    [{ default_branch: 'a..b' }, "default_branch is not a valid branch name: it contains '..', '@{' or '//'"],
    [{ default_branch: '' }, 'default_branch is not a valid branch name: it is empty'],
    [{ default_branch: '-x' }, "default_branch is not a valid branch name: it starts with '-'"],
  ])('when the body is %j, then 400 %s', (body, message) => {
    expect(() => parseUpdateRepository(body)).toThrow(message);
  });
});

describe('paging', () => {
  it.each([
    [{}, { page: 1, per_page: 30 }],
    [{ page: '3', per_page: '10' }, { page: 3, per_page: 10 }],
    [{ page: '0', per_page: '0' }, { page: 1, per_page: 30 }],
    [{ page: '-2', per_page: 'x' }, { page: 1, per_page: 30 }],
    [{ page: '1.5', per_page: '500' }, { page: 1, per_page: 100 }],
    [{ page: ['2', '3'] }, { page: 1, per_page: 30 }],
  ])('when the query is %j, then the page is %j as GitHub reads it', (query, page) => {
    expect(parsePage(query)).toEqual(page);
  });

  it('when there are no items, then the last page is 1', () => {
    expect(lastPageOf({ page: 1, per_page: 30 }, 0)).toBe(1);
    expect(lastPageOf({ page: 1, per_page: 30 }, 61)).toBe(3);
  });
});
