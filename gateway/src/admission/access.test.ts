import { describe, expect, it } from '@jest/globals';
import type { Principal, RepoContext } from '@githost/identity';
import { denyAnonymous, denyRepository } from './access.js';
import type { RouteMatch } from './routes.js';

const user: Principal = { user_id: 'u1', username: 'u', email: 'u@x', is_admin: false };
const repo = (over: Partial<RepoContext>): RepoContext => ({ id: 'r', owner: 'o', name: 'n', default_branch: 'main', private: false, shard: 'default', permission: 'read', owner_id: 'o1', ...over });
const api: RouteMatch = { upstream: 'accounts', auth: 'optional', surface: 'api', repo: { owner: 'o', name: 'n' } };
const browse: RouteMatch = { ...api, upstream: 'browse', surface: 'browse' };
const clone: RouteMatch = { ...api, upstream: 'git-storage', surface: 'git', push: false };
const push: RouteMatch = { ...clone, push: true };

const outcome = (d: ReturnType<typeof denyRepository>) => (d ? [d.error.kind, d.error.message, d.challenge] : 'allowed');

describe('access at the edge', () => {
  it('when an anonymous caller reaches a required route or pushes, then 401 (git with the challenge)', () => {
    expect(outcome(denyAnonymous({ ...api, auth: 'required' }, null))).toEqual(['unauthenticated', 'Authentication required', false]);
    expect(outcome(denyAnonymous(push, null))).toEqual(['unauthenticated', 'Authentication required', true]);
    expect(outcome(denyAnonymous(clone, null))).toBe('allowed');
    expect(outcome(denyAnonymous({ ...api, auth: 'required' }, user))).toBe('allowed');
  });
  it('when the repository is missing, then 404 worded by surface, and 401 for anonymous git', () => {
    expect(outcome(denyRepository(api, user, null))).toEqual(['not_found', 'Repository not found', false]);
    expect(outcome(denyRepository(browse, null, null))).toEqual(['not_found', 'Not found', false]);
    expect(outcome(denyRepository(clone, null, null))).toEqual(['unauthenticated', 'Authentication required', true]);
    expect(outcome(denyRepository(clone, user, null))).toEqual(['not_found', 'Repository not found', false]);
  });
  it('when a private repository cannot be read, then it is hidden; when it can, then allowed', () => {
    expect(outcome(denyRepository(api, user, repo({ private: true, permission: 'none' })))).toEqual(['not_found', 'Repository not found', false]);
    expect(outcome(denyRepository(clone, null, repo({ private: true, permission: 'none' })))).toEqual(['unauthenticated', 'Authentication required', true]);
    expect(outcome(denyRepository(clone, user, repo({ private: true, permission: 'read' })))).toBe('allowed');
  });
  it('when a reader pushes, then 403; when a writer or owner pushes, then allowed', () => {
    expect(outcome(denyRepository(push, user, repo({ permission: 'read' })))).toEqual(['forbidden', 'You do not have write access to this repository', false]);
    expect(outcome(denyRepository(push, user, repo({ permission: 'write' })))).toBe('allowed');
    expect(outcome(denyRepository(push, user, repo({ private: true, permission: 'admin' })))).toBe('allowed');
  });
  it('when a public repository is read by anyone, then allowed (the service decides writes)', () => {
    expect(outcome(denyRepository(api, null, repo({ permission: 'read' })))).toBe('allowed');
    expect(outcome(denyRepository(browse, user, repo({ permission: 'read' })))).toBe('allowed');
  });
});
