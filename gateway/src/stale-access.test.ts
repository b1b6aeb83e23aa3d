import { describe, expect, it } from '@jest/globals';
import type { Principal, RepoContext } from '@githost/identity';
import type { CachedAccountsGateway } from './clients/cached-accounts.js';
import { matchRoute } from './routes.js';
import { staleAccessAfter } from './stale-access.js';

const owner: Principal = { user_id: 'u-olga', username: 'olga', email: 'o@example.com', is_admin: false };
const repo: RepoContext = { id: 'r1', owner: 'olga', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission: 'admin', owner_id: 'u-olga' };

function recorder() {
  const forgotten: string[] = [];
  const cache = { forgetRepository: (id: string) => forgotten.push(`repo ${id}`), forgetUser: (id: string) => forgotten.push(`user ${id}`) } as unknown as CachedAccountsGateway;
  return { forgotten, cache };
}

/** What a 2xx answer to `method path` drops from the gateway's accounts cache. */
function afterSuccess(method: string, path: string): string[] {
  const { forgotten, cache } = recorder();
  staleAccessAfter(method, path, matchRoute(method, path)!, owner, repo, cache)?.();
  return forgotten;
}

describe('staleAccessAfter', () => {
  it('when a repository is changed or deleted, then its cached access answers are dropped, so the next request sees it', () => {
    expect(afterSuccess('PATCH', '/api/repos/olga/demo')).toEqual(['repo r1']);
    expect(afterSuccess('DELETE', '/api/repos/olga/demo')).toEqual(['repo r1']);
    expect(afterSuccess('PUT', '/api/repos/olga/demo/collaborators/bob')).toEqual(['repo r1']);
    expect(afterSuccess('PUT', '/api/repos/olga/demo/branch-protections/main')).toEqual(['repo r1']);
  });

  it('when a request only reads, then nothing is dropped', () => {
    expect(afterSuccess('GET', '/api/repos/olga/demo')).toEqual([]);
    expect(afterSuccess('GET', '/api/repos/olga/demo/collaborators')).toEqual([]);
  });
});
