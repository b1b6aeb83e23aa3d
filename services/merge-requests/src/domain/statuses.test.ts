import { beforeEach, describe, expect, it } from '@jest/globals';
import type { AppError } from '@githost/errors';
import { FakeGit } from '../../test/support/in-memory.js';
import { MemoryStatuses } from '../../test/support/in-memory-workflow.js';
import { combine, createStatus, getCombinedStatus, listStatuses, pageOf, validateStatus, type StatusDeps } from './statuses.js';
import type { Caller, RepoRef } from './types.js';

const C1 = 'a'.repeat(40);
const C2 = 'b'.repeat(40);
const repo: RepoRef = { id: 'r1', owner: 'alice', name: 'proj', shard: 'default', private: false, permission: 'write' };
const ci: Caller = { user_id: 'u-ci', username: 'ci-bot' };

let git: FakeGit;
let statuses: MemoryStatuses;
let kicks: number;
let deps: StatusDeps;
const rejection = (p: Promise<unknown>) => p.then(() => null, (e: AppError) => ({ kind: e.kind, message: e.message }));
const post = (body: unknown, sha = C1, r = repo) => createStatus(deps, r, ci, sha, body, 'req-9');

beforeEach(() => {
  git = new FakeGit();
  git.commit(C1);
  git.commit(C2, C1);
  git.branches.set('main', C2).set('feature/x', C1);
  git.tags.set('v1', C1);
  statuses = new MemoryStatuses();
  kicks = 0;
  deps = { statuses, git, relay: { kick: () => void kicks++ } };
});

describe('creating a status (README "Commit statuses")', () => {
  it('when a writer posts a state only, then 201 shape with context `default`, the event in the outbox and the relay kicked', async () => {
    const s = await post({ state: 'pending' });
    expect(s).toEqual({ id: expect.any(String), sha: C1, state: 'pending', context: 'default', description: null, target_url: null, creator: { username: 'ci-bot' }, created_at: expect.any(String), updated_at: s.created_at });
    expect(kicks).toBe(1);
    expect(statuses.outbox[0]).toMatchObject({ kind: 'status', repository: { id: 'r1', owner: 'alice', name: 'proj' }, request_id: 'req-9' });
    expect(statuses.outbox[0]!.payload).toEqual({
      event: 'status',
      sha: C1,
      state: 'pending',
      context: 'default',
      description: null,
      target_url: null,
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' },
      sender: { username: 'ci-bot' },
    });
  });

  it('when the sha is given in upper case, then it is stored lower case', async () => {
    expect((await post({ state: 'success' }, C1.toUpperCase())).sha).toBe(C1);
  });

  it('when the state is unknown, then 400 naming the allowed values and nothing is written', async () => {
    expect(await rejection(post({ state: 'ok' }))).toEqual({ kind: 'validation', message: 'state must be one of: pending, success, failure, error' });
    expect(statuses.statuses).toEqual([]);
  });

  it('when description, context or target_url are out of bounds, then 400', () => {
    expect(() => validateStatus({ state: 'success', description: 'd'.repeat(141) })).toThrow('description must be at most 140 characters');
    expect(() => validateStatus({ state: 'success', context: '' })).toThrow('context must be a non-empty string');
    expect(() => validateStatus({ state: 'success', context: 'c'.repeat(256) })).toThrow('context must be at most 255 characters');
    expect(() => validateStatus({ state: 'success', target_url: 'javascript:alert(1)' })).toThrow('target_url must be an http or https URL');
    expect(() => validateStatus({ state: 'success', target_url: `https://ci.example/${'p'.repeat(2048)}` })).toThrow('target_url must be at most 2048 characters');
    expect(validateStatus({ state: 'error', context: 'ci/build', description: 'd'.repeat(140), target_url: 'https://ci.example/1' })).toEqual({ state: 'error', context: 'ci/build', description: 'd'.repeat(140), target_url: 'https://ci.example/1' });
  });

  it('when the sha is not a full commit id of the repository, then 404 `Commit not found: <sha>`', async () => {
    expect(await rejection(post({ state: 'success' }, 'f'.repeat(40)))).toEqual({ kind: 'not_found', message: `Commit not found: ${'f'.repeat(40)}` });
    expect(await rejection(post({ state: 'success' }, C1.slice(0, 7)))).toEqual({ kind: 'not_found', message: `Commit not found: ${C1.slice(0, 7)}` });
    expect(await rejection(post({ state: 'success' }, 'main'))).toEqual({ kind: 'not_found', message: 'Commit not found: main' });
  });

  it('when the caller can only read, then 400 `You do not have write access to this repository`', async () => {
    expect(await rejection(post({ state: 'success' }, C1, { ...repo, permission: 'read' }))).toEqual({ kind: 'validation', message: 'You do not have write access to this repository' });
  });

  it('when the repository is private and unreadable, then 404 `Repository not found`', async () => {
    expect(await rejection(post({ state: 'success' }, C1, { ...repo, private: true, permission: 'none' }))).toEqual({ kind: 'not_found', message: 'Repository not found' });
  });

  it('when a context already holds 1,000 statuses, then 400 and other contexts still accept', async () => {
    for (let i = 0; i < 1000; i++) await post({ state: 'pending', context: 'ci' });
    expect(await rejection(post({ state: 'success', context: 'ci' }))).toEqual({ kind: 'validation', message: 'This commit already has 1000 statuses for context "ci"; no more can be created' });
    expect((await post({ state: 'success', context: 'lint' })).context).toBe('lint');
  });
});

describe('reading statuses', () => {
  it('when listed by branch, tag or sha, then newest first, and paged', async () => {
    await post({ state: 'pending', context: 'ci' });
    await post({ state: 'success', context: 'ci' });
    await post({ state: 'failure', context: 'lint' });
    for (const ref of ['feature/x', 'v1', C1]) {
      expect((await listStatuses(deps, repo, ref, { page: 1, perPage: 30 })).map((s) => s.state)).toEqual(['failure', 'success', 'pending']);
    }
    expect((await listStatuses(deps, repo, C1, { page: 2, perPage: 2 })).map((s) => s.state)).toEqual(['pending']);
  });

  it('when the ref is unknown, then 404 `Ref not found: <ref>`', async () => {
    for (const ref of ['nope', 'f'.repeat(40), C1.slice(0, 8), '-x']) {
      expect(await rejection(listStatuses(deps, repo, ref, { page: 1, perPage: 30 }))).toEqual({ kind: 'not_found', message: `Ref not found: ${ref}` });
    }
  });

  it('when combined, then the latest per context decides and total_count counts contexts', async () => {
    expect(await getCombinedStatus(deps, repo, 'main')).toEqual({ state: 'pending', sha: C2, total_count: 0, statuses: [] });
    await post({ state: 'failure', context: 'ci' }, C2);
    await post({ state: 'success', context: 'ci' }, C2);
    await post({ state: 'success', context: 'lint' }, C2);
    const combined = await getCombinedStatus(deps, repo, 'main');
    expect(combined).toMatchObject({ state: 'success', sha: C2, total_count: 2 });
    expect(combined.statuses.map((s) => [s.context, s.state])).toEqual([['lint', 'success'], ['ci', 'success']]);
  });

  it('when private and unreadable, then 404 `Repository not found`', async () => {
    expect(await rejection(getCombinedStatus(deps, { ...repo, private: true, permission: 'none' }, 'main'))).toEqual({ kind: 'not_found', message: 'Repository not found' });
  });
});

describe('combine', () => {
  it('when any is failure or error, then failure; else pending if any pending or none; else success', () => {
    expect(combine([{ state: 'success' }, { state: 'error' }])).toBe('failure');
    expect(combine([{ state: 'pending' }, { state: 'failure' }])).toBe('failure');
    expect(combine([{ state: 'success' }, { state: 'pending' }])).toBe('pending');
    expect(combine([])).toBe('pending');
    expect(combine([{ state: 'success' }, { state: 'success' }])).toBe('success');
  });
});

describe('pageOf', () => {
  it('when page and per_page are missing, invalid or too large, then GitHub defaults and the 100 cap', () => {
    expect(pageOf({})).toEqual({ page: 1, perPage: 30 });
    expect(pageOf({ page: '0', per_page: 'x' })).toEqual({ page: 1, perPage: 30 });
    expect(pageOf({ page: '3', per_page: '500' })).toEqual({ page: 3, perPage: 100 });
  });
});
