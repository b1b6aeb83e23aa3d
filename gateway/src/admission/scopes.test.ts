import { describe, expect, it } from '@jest/globals';
import type { accounts } from '@githost/protos';
import type { Principal, RepoContext } from '@githost/identity';
import { authenticationOf, type Authentication, type TokenScope } from '../clients/accounts.js';
import { matchRoute } from './routes.js';
import { capPermission, denyScope, READ_SCOPE_ONLY } from './scopes.js';

const user: Principal = { user_id: 'u1', username: 'ci', email: 'ci@example.com', is_admin: false };
const token = (...scopes: TokenScope[]): Authentication => ({ principal: user, scopes, expiresAt: null });
const repo = (permission: RepoContext['permission']): RepoContext => ({ id: 'r', owner: 'o', name: 'n', default_branch: 'main', private: false, shard: 'default', permission, owner_id: 'o1' });

/** The refusal for `method path` (query after `?`) made with `auth`, or 'allowed'. */
function outcome(method: string, target: string, auth: Authentication | null): unknown {
  const [path, query = ''] = target.split('?') as [string, string?];
  const denial = denyScope(matchRoute(method, path, query)!, method, auth);
  return denial ? [denial.error.kind, denial.error.message] : 'allowed';
}

describe('token scopes at the edge', () => {
  const read = token('read');
  const refused = ['forbidden', READ_SCOPE_ONLY];

  it('when a read token clones, fetches or browses, then allowed', () => {
    expect(outcome('GET', '/o/n.git/info/refs?service=git-upload-pack', read)).toBe('allowed');
    expect(outcome('POST', '/o/n.git/git-upload-pack', read)).toBe('allowed');
    expect(outcome('GET', '/api/repos/o/n/tree/main', read)).toBe('allowed');
    expect(outcome('GET', '/api/repos/o/n/merge-requests', read)).toBe('allowed');
    expect(outcome('HEAD', '/api/repos/o/n/raw/main/README.md', read)).toBe('allowed');
    expect(outcome('GET', '/api/user/tokens', read)).toBe('allowed');
  });

  it('when a read token pushes or sends any API write, then 403 with the scope named', () => {
    expect(outcome('GET', '/o/n.git/info/refs?service=git-receive-pack', read)).toEqual(refused);
    expect(outcome('POST', '/o/n.git/git-receive-pack', read)).toEqual(refused);
    expect(outcome('POST', '/api/repos/o/n/merge-requests', read)).toEqual(refused);
    expect(outcome('POST', '/api/repos/o/n/merge-requests/1/comments', read)).toEqual(refused);
    expect(outcome('POST', '/api/repos/o/n/merge-requests/1/merge', read)).toEqual(refused);
    expect(outcome('POST', '/api/repos/o/n/statuses/0123456789012345678901234567890123456789', read)).toEqual(refused);
    expect(outcome('PUT', '/api/repos/o/n/collaborators/bob', read)).toEqual(refused);
    expect(outcome('POST', '/api/repos', read)).toEqual(refused);
    // Minting a token is a write too: a read token cannot make itself a write token.
    expect(outcome('POST', '/api/user/tokens', read)).toEqual(refused);
  });

  it('when a write token or an anonymous caller writes, then the scope check lets it through (access decides)', () => {
    expect(outcome('POST', '/o/n.git/git-receive-pack', token('read', 'write'))).toBe('allowed');
    expect(outcome('POST', '/api/repos/o/n/statuses/0123456789012345678901234567890123456789', token('read', 'write'))).toBe('allowed');
    expect(outcome('POST', '/api/repos/o/n/merge-requests', null)).toBe('allowed');
  });

  it('when a read token is signed, then its permission is at most read; a write token keeps its own', () => {
    expect(capPermission(repo('admin'), read).permission).toBe('read');
    expect(capPermission(repo('write'), read).permission).toBe('read');
    expect(capPermission(repo('none'), read).permission).toBe('none');
    expect(capPermission(repo('admin'), token('read', 'write')).permission).toBe('admin');
    expect(capPermission(repo('write'), null).permission).toBe('write');
  });

  it('when accounts answers, then is_admin needs the admin scope, no scopes is read only and expiry is parsed', () => {
    const answer = (over: Partial<accounts.AuthenticateResponse__Output>): accounts.AuthenticateResponse__Output => ({
      user: { id: 'u9', username: 'root', email: 'r@example.com', is_admin: true }, bootstrap_admin: false, scopes: ['read', 'write', 'admin'], expires_at: '', session_id: '', ...over,
    });
    expect(authenticationOf(answer({}))).toEqual({ principal: { user_id: 'u9', username: 'root', email: 'r@example.com', is_admin: true }, scopes: ['read', 'write', 'admin'], expiresAt: null });
    expect(authenticationOf(answer({ scopes: ['read', 'write'] })).principal.is_admin).toBe(false);
    expect(authenticationOf(answer({ scopes: [] })).scopes).toEqual(['read']);
    expect(authenticationOf(answer({ scopes: ['read', 'bogus'] })).scopes).toEqual(['read']);
    expect(authenticationOf(answer({ expires_at: '2030-01-01T00:00:00.000Z' })).expiresAt).toBe(Date.parse('2030-01-01T00:00:00.000Z'));
    expect(authenticationOf(answer({ session_id: 's-1' })).principal.session_id).toBe('s-1');
    expect(authenticationOf(answer({})).principal).not.toHaveProperty('session_id');
    const bootstrap = authenticationOf(answer({ user: null, bootstrap_admin: true, scopes: [] }));
    expect([bootstrap.principal.user_id, bootstrap.principal.is_admin, bootstrap.scopes]).toEqual([null, true, ['read', 'write', 'admin']]);
  });
});
