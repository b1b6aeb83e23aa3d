import { describe, expect, it } from '@jest/globals';
import { conflict, unavailable } from '@githost/errors';
import { createRepository } from './repositories.js';
import type { RepositoryStorage, RepositoryStore, UserStore } from './ports.js';
import type { Caller, Repository, User } from './types.js';
import type { CreateRepositoryInput } from './input.js';

const alice: User = { id: 'u1', username: 'alice', email: 'a@example.test', is_admin: false, suspended_at: null, created_at: '2026-01-01T00:00:00.000Z' };
const caller: Caller = { user_id: 'u1', username: 'alice', is_admin: false };
const input: CreateRepositoryInput = { name: 'demo', private: false, default_branch: 'main', description: null, owner: undefined };

const users: UserStore = {
  insert: async () => alice,
  byIds: async (ids) => (ids.includes('u1') ? [alice] : []),
  find: async (ids, names) => (ids.includes('u1') || names.includes('alice') ? [alice] : []),
  byUsername: async (name) => (name.toLowerCase() === 'alice' ? alice : null),
  list: async () => ({ items: [alice], total: 1 }),
  listActive: async () => ({ items: [alice], total: 1 }),
  update: async () => alice,
  remove: async () => 'deleted',
};

function storageLog(fail?: Error): RepositoryStorage & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async createRepository(shard, id) {
      calls.push(`create ${id} on ${shard}`);
      if (fail) throw fail;
    },
    async removeRepository(shard, id) {
      calls.push(`remove ${id} on ${shard}`);
    },
    setDefaultBranch: async () => undefined,
    listBranches: async () => [],
  };
}

/** A store whose insert runs `during` and then behaves as told (commit or fail). */
function store(after: 'commit' | Error): RepositoryStore {
  return {
    async insertWith(repo, during) {
      await during();
      if (after !== 'commit') throw after;
      return { ...repo, owner: 'alice', created_at: '2026-01-01T00:00:00.000Z' } as Repository;
    },
    byId: async () => null,
    accessFacts: async () => null,
    setCollaborator: async () => undefined,
    removeCollaborator: async () => undefined,
    countByShard: async () => new Map([['default', 3], ['shard-1', 1]]),
    updateWith: async () => null,
    deleteWith: async () => false,
    listForMember: async () => ({ items: [], total: 0 }),
    listOwnedBy: async () => ({ items: [], total: 0 }),
    listReadable: async () => ({ items: [], total: 0 }),
    listCollaborators: async () => ({ items: [], total: 0 }),
  };
}

const placement = { shards: ['default', 'shard-1'] };

describe('repository creation is all or nothing', () => {
  it('when row and storage both succeed, then storage was asked once and nothing is removed', async () => {
    const storage = storageLog();
    const repo = await createRepository({ repositories: store('commit'), users, storage, placement }, caller, input);
    expect(storage.calls).toEqual([`create ${repo.id} on shard-1`]);
  });

  it('when the commit fails after storage created the repository, then the repository is removed again', async () => {
    const storage = storageLog();
    const deps = { repositories: store(unavailable('Database unavailable')), users, storage, placement };
    await expect(createRepository(deps, caller, input)).rejects.toThrow('Database unavailable');
    const id = storage.calls[0]!.split(' ')[1];
    expect(storage.calls).toEqual([`create ${id} on shard-1`, `remove ${id} on shard-1`]);
  });

  it('when storage itself fails, then nothing is removed (it created nothing) and the error is kept', async () => {
    const storage = storageLog(conflict('exists'));
    await expect(createRepository({ repositories: store('commit'), users, storage, placement }, caller, input)).rejects.toThrow('exists');
    expect(storage.calls).toHaveLength(1);
  });

  it('when removing also fails, then the orphan is reported and the first error is kept', async () => {
    const orphans: string[] = [];
    const storage = storageLog();
    storage.removeRepository = async () => {
      throw unavailable('storage down');
    };
    const deps = { repositories: store(new Error('commit failed')), users, storage, placement, onOrphan: (id: string) => orphans.push(id) };
    await expect(createRepository(deps, caller, input)).rejects.toThrow('commit failed');
    expect(orphans).toHaveLength(1);
  });
});

describe('which shard a new repository goes to', () => {
  it('when no default shard is configured, then the record and git-storage both get the fewest-filled shard', async () => {
    const storage = storageLog();
    const repo = await createRepository({ repositories: store('commit'), users, storage, placement }, caller, input);
    expect(repo.shard).toBe('shard-1');
    expect(storage.calls).toEqual([`create ${repo.id} on shard-1`]);
  });

  it('when a default shard is configured, then it is used without counting', async () => {
    const storage = storageLog();
    const counting = store('commit');
    counting.countByShard = async () => {
      throw new Error('counted');
    };
    const repo = await createRepository({ repositories: counting, users, storage, placement: { ...placement, defaultShard: 'default' } }, caller, input);
    expect([repo.shard, storage.calls]).toEqual(['default', [`create ${repo.id} on default`]]);
  });
});

describe('who may own a new repository', () => {
  const deps = { repositories: store('commit'), users, storage: storageLog(), placement };

  it('when a user names themselves in another letter case, then it is created under their name', async () => {
    expect((await createRepository(deps, caller, { ...input, owner: 'ALICE' })).owner_id).toBe('u1');
  });

  it('when a user names someone else, existing or not, then it is forbidden alike', async () => {
    const bob: Caller = { user_id: 'u2', username: 'bob', is_admin: false };
    await expect(createRepository(deps, bob, { ...input, owner: 'alice' })).rejects.toMatchObject({ kind: 'forbidden', message: 'Forbidden' });
    await expect(createRepository(deps, bob, { ...input, owner: 'ghost' })).rejects.toMatchObject({ kind: 'forbidden', message: 'Forbidden' });
  });

  it('when the bootstrap admin names no owner, then it is asked for one', async () => {
    await expect(createRepository(deps, { user_id: null, username: '', is_admin: true }, input)).rejects.toMatchObject({ kind: 'validation' });
  });
});
