import { describe, expect, it } from '@jest/globals';
import type { Principal, RepoContext } from '@githost/identity';
import type { CachedAccountsGateway } from '../clients/cached-accounts.js';
import { matchRoute } from './routes.js';
import { staleAccessAfter } from './stale-access.js';

const owner: Principal = { user_id: 'u-olga', username: 'olga', email: 'o@example.com', is_admin: false };
const repo: RepoContext = { id: 'r1', owner: 'olga', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission: 'admin', owner_id: 'u-olga' };

function recorder() {
  const forgotten: string[] = [];
  const cache = {
    forgetRepository: (id: string) => forgotten.push(`repo ${id}`),
    forgetUser: (id: string) => forgotten.push(`user ${id}`),
    forgetUsername: (name: string) => forgotten.push(`username ${name}`),
    forgetAuthentications: () => forgotten.push('all authentications'),
  } as unknown as CachedAccountsGateway;
  return { forgotten, cache };
}

/** What a 2xx answer to `method path` drops from the gateway's accounts cache. */
function afterSuccess(method: string, path: string, principal: Principal = owner): string[] {
  const { forgotten, cache } = recorder();
  const route = matchRoute(method, path)!;
  staleAccessAfter(method, path, route, principal, route.repo ? repo : null, cache)?.();
  return forgotten;
}

describe('staleAccessAfter', () => {
  it('when a repository is changed or deleted, then its cached access answers are dropped, so the next request sees it', () => {
    expect(afterSuccess('PATCH', '/api/repos/olga/demo')).toEqual(['repo r1']);
    expect(afterSuccess('DELETE', '/api/repos/olga/demo')).toEqual(['repo r1']);
    expect(afterSuccess('PUT', '/api/repos/olga/demo/collaborators/bob')).toEqual(['repo r1']);
    expect(afterSuccess('PUT', '/api/repos/olga/demo/branch-protections/main')).toEqual(['repo r1']);
  });

  it('when a push reaches git-storage, then the cached access answers of the repository are dropped (its first push may set the default branch); a clone drops nothing', () => {
    expect(afterSuccess('POST', '/olga/demo.git/git-receive-pack')).toEqual(['repo r1']);
    expect(afterSuccess('GET', '/olga/demo.git/info/refs')).toEqual([]);
    expect(afterSuccess('POST', '/olga/demo.git/git-upload-pack')).toEqual([]);
  });

  it('when an LFS object is uploaded or verified, or a lock taken, then nothing is dropped: the next object of the transfer keeps the cached access', () => {
    const oid = 'a'.repeat(64);
    expect(afterSuccess('PUT', `/olga/demo.git/info/lfs/objects/${oid}`)).toEqual([]);
    expect(afterSuccess('POST', `/olga/demo.git/info/lfs/objects/${oid}/verify`)).toEqual([]);
    expect(afterSuccess('POST', '/olga/demo.git/info/lfs/objects/batch')).toEqual([]);
    expect(afterSuccess('POST', '/olga/demo.git/info/lfs/locks')).toEqual([]);
  });

  it('when a request only reads, then nothing is dropped', () => {
    expect(afterSuccess('GET', '/api/repos/olga/demo')).toEqual([]);
    expect(afterSuccess('GET', '/api/repos/olga/demo/collaborators')).toEqual([]);
  });

  it('when a site admin changes, suspends or deletes a user or revokes their token, then that user\'s cached answers are dropped', () => {
    const root: Principal = { ...owner, user_id: 'u-root', username: 'root', is_admin: true };
    expect(afterSuccess('PATCH', '/api/admin/users/b%6Fb', root)).toEqual(['username bob']);
    expect(afterSuccess('DELETE', '/api/admin/users/bob', root)).toEqual(['username bob']);
    expect(afterSuccess('DELETE', '/api/admin/users/bob/tokens/t1', root)).toEqual(['username bob']);
    expect(afterSuccess('GET', '/api/admin/users/bob/tokens', root)).toEqual([]);
    expect(afterSuccess('PATCH', '/api/admin/users/%ff', root)).toEqual([]);
  });

  it('when a token is revoked by its owner, then their answers go; by a site admin, then every cached authentication goes', () => {
    expect(afterSuccess('DELETE', '/api/user/tokens/t1')).toEqual(['user u-olga']);
    expect(afterSuccess('DELETE', '/api/user/tokens/t1', { ...owner, is_admin: true })).toEqual(['all authentications']);
  });

  it('when a user signs a session out or changes her password, then her cached answers go, so an ended session stops working at once', () => {
    expect(afterSuccess('DELETE', '/api/user/sessions/current')).toEqual(['user u-olga']);
    expect(afterSuccess('DELETE', '/api/user/sessions/s-1')).toEqual(['user u-olga']);
    expect(afterSuccess('PUT', '/api/user/password')).toEqual(['user u-olga']);
    expect(afterSuccess('PUT', '/api/admin/users/bob/password', { ...owner, is_admin: true })).toEqual(['username bob']);
    expect(afterSuccess('GET', '/api/user/sessions')).toEqual([]);
    expect(afterSuccess('POST', '/api/sessions', owner)).toEqual([]);
  });
  it('when an OAuth2 application loses access or a client revokes a token, then the cached Authenticate answers go (docs/decisions/oauth2-provider.md#tokens)', () => {
    expect(afterSuccess('DELETE', '/api/user/oauth2/grants/abc')).toEqual(['user u-olga']);
    expect(afterSuccess('DELETE', '/api/v1/user/applications/oauth2/3')).toEqual(['user u-olga']);
    const { forgotten, cache } = recorder();
    staleAccessAfter('POST', '/login/oauth/revoke', matchRoute('POST', '/login/oauth/revoke')!, null, null, cache)?.();
    expect(forgotten).toEqual(['all authentications']);
    expect(staleAccessAfter('POST', '/login/oauth/access_token', matchRoute('POST', '/login/oauth/access_token')!, null, null, cache)).toBeUndefined();
  });
});
