import { describe, expect, it } from '@jest/globals';
import type { CommitStatus } from '@githost/api-types';
import { giteaIdOf } from '@githost/gitea-ids';
import { sortStatuses, toCreateStatus, toGiteaCombined, toGiteaStatus, worstState, type StatusContext } from './map-status.js';

const ctx: StatusContext = {
  publicUrl: 'https://git.example',
  owner: 'alice',
  name: 'app',
  repoId: 'repo-uuid',
  repository: { id: 42 },
  user: (u) => ({ login: u }),
};
const SHA = 'd'.repeat(40);
const status = (over: Partial<CommitStatus>): CommitStatus => ({
  id: 's-uuid',
  sha: SHA,
  state: 'success',
  context: 'ci/build',
  description: null,
  target_url: null,
  creator: { username: 'ci' },
  created_at: '2026-11-03T10:00:00.000Z',
  updated_at: '2026-11-03T10:00:00.000Z',
  ...over,
});

describe('toGiteaStatus', () => {
  it('maps field by field: state is Gitea\'s `status`, absent texts are empty', () => {
    expect(toGiteaStatus(ctx, status({ state: 'failure', description: 'red', target_url: 'https://ci.example/1' }))).toEqual({
      id: giteaIdOf('status', `repo-uuid:${SHA}:ci/build:2026-11-03T10:00:00.000Z`),
      status: 'failure',
      target_url: 'https://ci.example/1',
      description: 'red',
      url: `https://git.example/api/v1/repos/alice/app/statuses/${SHA}`,
      context: 'ci/build',
      creator: { login: 'ci' },
      created_at: '2026-11-03T10:00:00.000Z',
      updated_at: '2026-11-03T10:00:00.000Z',
    });
    expect(toGiteaStatus(ctx, status({})).target_url).toBe('');
  });
});

describe('combined', () => {
  it('is the worst state by Gitea\'s order: error before failure before pending', () => {
    expect(worstState(['success', 'pending'])).toBe('pending');
    expect(worstState(['failure', 'error', 'pending'])).toBe('error');
    expect(worstState(['success', 'failure'])).toBe('failure');
    expect(worstState([])).toBe('success');
  });

  it('answers the statuses with the repository, and Gitea\'s zero value for none', () => {
    const c = toGiteaCombined(ctx, [status({ context: 'a', state: 'pending' }), status({ context: 'b' })]);
    expect(c).toMatchObject({ state: 'pending', sha: SHA, total_count: 2, repository: { id: 42 }, commit_url: '', url: '' });
    expect(c.statuses?.map((s) => s.context)).toEqual(['a', 'b']);
    expect(toGiteaCombined(ctx, [])).toEqual({ state: '', sha: '', total_count: 0, statuses: null, repository: null, commit_url: '', url: '' });
  });
});

describe('toCreateStatus', () => {
  it('drops empty strings and keeps the rest', () => {
    expect(toCreateStatus({ state: 'pending', context: '', description: '', target_url: '' })).toEqual({ state: 'pending' });
    expect(toCreateStatus({ state: 'error', context: 'ci', description: 'd', target_url: 'https://x' })).toEqual({ state: 'error', context: 'ci', description: 'd', target_url: 'https://x' });
  });

  it('refuses warning and unknown states', () => {
    expect(() => toCreateStatus({ state: 'warning' })).toThrow('githost has no warning state');
    expect(() => toCreateStatus({})).toThrow('state must be one of');
  });
});

describe('sortStatuses', () => {
  const list = [
    { id: 3, created_at: '2026-01-03T00:00:00Z', updated_at: '2026-01-03T00:00:00Z' },
    { id: 2, created_at: '2026-01-02T00:00:00Z', updated_at: '2026-01-05T00:00:00Z' },
    { id: 1, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' },
  ];
  it('orders as Gitea\'s sort names ask', () => {
    expect(sortStatuses(list, undefined).map((s) => s.id)).toEqual([3, 2, 1]);
    expect(sortStatuses(list, 'oldest').map((s) => s.id)).toEqual([1, 2, 3]);
    expect(sortStatuses(list, 'recentupdate').map((s) => s.id)).toEqual([2, 3, 1]);
    expect(sortStatuses(list, 'leastupdate').map((s) => s.id)).toEqual([1, 3, 2]);
  });
});
