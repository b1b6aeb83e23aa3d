import { describe, expect, it } from '@jest/globals';
import { matchRoute, matchSiteRoute, splitTarget } from './routes.js';

describe('route table', () => {
  it('when a browse path has slashes in ref and path, then browse answers with optional auth', () => {
    expect(matchRoute('GET', '/api/repos/alice/demo/tree/feature/x/src')).toEqual({ upstream: 'browse', auth: 'optional', surface: 'browse', repo: { owner: 'alice', name: 'demo' } });
    expect(matchRoute('GET', '/api/repos/alice/demo/tree')?.upstream).toBe('browse');
    expect(matchRoute('GET', '/api/repos/alice/demo/commits/')?.upstream).toBe('browse');
    expect(matchRoute('POST', '/api/repos/alice/demo/tree/main')).toBeUndefined();
  });
  it('when merge requests are read, then auth is optional; when written, then required', () => {
    expect(matchRoute('GET', '/api/repos/a/b/merge-requests')?.auth).toBe('optional');
    expect(matchRoute('GET', '/api/repos/a/b/merge-requests/3')?.auth).toBe('optional');
    expect(matchRoute('POST', '/api/repos/a/b/merge-requests/3/merge')).toMatchObject({ upstream: 'merge-requests', auth: 'required' });
  });
  it('when webhooks are listed, then auth is required even for GET (seed §5)', () => {
    expect(matchRoute('GET', '/api/repos/a/b/webhooks')).toMatchObject({ upstream: 'webhooks', auth: 'required' });
    expect(matchRoute('DELETE', '/api/repos/a/b/webhooks/w1')).toMatchObject({ upstream: 'webhooks', auth: 'required' });
  });
  it('when git lfs calls its API, then git-storage answers on the git surface; object uploads, verify and locks are writes, the batch and downloads are not', () => {
    const oid = 'a'.repeat(64);
    const repo = { owner: 'alice', name: 'demo' };
    expect(matchRoute('POST', '/alice/demo.git/info/lfs/objects/batch')).toEqual({ upstream: 'git-storage', auth: 'optional', surface: 'git', repo, push: false, lfs: true });
    expect(matchRoute('GET', `/alice/demo.git/info/lfs/objects/${oid}`)).toEqual({ upstream: 'git-storage', auth: 'optional', surface: 'git', repo, push: false, lfs: true, lfsObject: { oid, write: false } });
    expect(matchRoute('PUT', `/alice/demo.git/info/lfs/objects/${oid}`)?.lfsObject).toEqual({ oid, write: true });
    expect(matchRoute('POST', `/alice/demo.git/info/lfs/objects/${oid}/verify`)?.lfsObject).toEqual({ oid, write: true });
    expect(matchRoute('GET', '/alice/demo.git/info/lfs/locks')?.push).toBe(false);
    expect(matchRoute('POST', '/alice/demo.git/info/lfs/locks')?.push).toBe(true);
    expect(matchRoute('POST', '/alice/demo.git/info/lfs/locks/verify')?.push).toBe(true);
    expect(matchRoute('POST', '/alice/demo.git/info/lfs/locks/123/unlock')?.push).toBe(true);
    expect(matchRoute('GET', '/alice/demo.git/info/lfs/elsewhere')).toBeUndefined();
  });

  it('when git asks for the receive-pack advertisement or posts a pack, then it is a push', () => {
    expect(matchRoute('GET', '/alice/demo.git/info/refs', 'service=git-receive-pack')).toEqual({ upstream: 'git-storage', auth: 'optional', surface: 'git', repo: { owner: 'alice', name: 'demo' }, push: true });
    expect(matchRoute('POST', '/alice/demo.git/git-receive-pack')?.push).toBe(true);
    expect(matchRoute('GET', '/alice/demo.git/info/refs', 'service=git-upload-pack')?.push).toBe(false);
    expect(matchRoute('POST', '/alice/demo.git/git-upload-pack')?.push).toBe(false);
  });
  it('when owner or repo segments are percent-encoded, then they are decoded; when they hide a slash or are broken, then no route', () => {
    expect(matchRoute('GET', '/api/repos/al%69ce/demo')?.repo).toEqual({ owner: 'alice', name: 'demo' });
    expect(matchRoute('GET', '/api/repos/a%2Fb/demo')).toBeUndefined();
    expect(matchRoute('GET', '/api/repos/%E0%A4%A/demo')).toBeUndefined();
  });
  it('when statuses are posted or read, then merge requests answers them before the browse commit log', () => {
    expect(matchRoute('POST', '/api/repos/a/b/statuses/' + 'a'.repeat(40))).toMatchObject({ upstream: 'merge-requests', auth: 'required', surface: 'api' });
    expect(matchRoute('GET', '/api/repos/a/b/commits/feature/x/statuses')).toMatchObject({ upstream: 'merge-requests', auth: 'optional' });
    expect(matchRoute('GET', '/api/repos/a/b/commits/main/status')).toMatchObject({ upstream: 'merge-requests', auth: 'optional' });
    expect(matchRoute('GET', '/api/repos/a/b/commits/main')?.upstream).toBe('browse');
    expect(matchRoute('GET', '/api/repos/a/b/statuses/abc')).toBeUndefined();
  });
  it('when compare or an archive is asked for, then browse or the shard answers with optional auth', () => {
    expect(matchRoute('GET', '/api/repos/a/b/compare/main...feature/x')).toMatchObject({ upstream: 'browse', auth: 'optional', surface: 'browse' });
    expect(matchRoute('GET', '/api/repos/a/b/archive/release/1.0.tar.gz')).toMatchObject({ upstream: 'git-storage', auth: 'optional', surface: 'browse' });
    expect(matchRoute('GET', '/api/repos/a/b/archive/main.zip')?.upstream).toBe('git-storage');
    expect(matchRoute('GET', '/api/repos/a/b/archive/main.rar')).toBeUndefined();
  });
  it('when repositories, collaborators or protections are managed, then accounts answers', () => {
    expect(matchRoute('GET', '/api/users/alice/repos')).toEqual({ upstream: 'accounts', auth: 'optional', surface: 'api' });
    expect(matchRoute('GET', '/api/repos')).toEqual({ upstream: 'accounts', auth: 'optional', surface: 'api' });
    expect(matchRoute('GET', '/api/users')).toEqual({ upstream: 'accounts', auth: 'optional', surface: 'api' });
    expect(matchRoute('GET', '/api/user/repos')).toMatchObject({ upstream: 'accounts', auth: 'required' });
    expect(matchRoute('POST', '/api/sessions')).toEqual({ upstream: 'accounts', auth: 'optional', surface: 'api' });
    expect(matchRoute('GET', '/api/sessions')).toBeUndefined();
    expect(matchRoute('DELETE', '/api/user/sessions/current')).toEqual({ upstream: 'accounts', auth: 'required', surface: 'api' });
    expect(matchRoute('PATCH', '/api/repos/a/b')).toMatchObject({ upstream: 'accounts', auth: 'required' });
    expect(matchRoute('DELETE', '/api/repos/a/b')).toMatchObject({ upstream: 'accounts', auth: 'required' });
    expect(matchRoute('GET', '/api/repos/a/b/collaborators')).toMatchObject({ upstream: 'accounts', auth: 'required' });
    expect(matchRoute('PUT', '/api/repos/a/b/branch-protections/release%2F*')).toMatchObject({ upstream: 'accounts', auth: 'required' });
    expect(matchRoute('GET', '/api/repos/a/b/branch-protections')).toMatchObject({ upstream: 'accounts' });
    expect(matchRoute('GET', '/api/repos/a/b/keys')).toMatchObject({ upstream: 'accounts', auth: 'required', repo: { owner: 'a', name: 'b' } });
    expect(matchRoute('DELETE', '/api/repos/a/b/keys/7')).toMatchObject({ upstream: 'accounts', auth: 'required' });
  });
  it('when a path is outside the table, then no route', () => {
    for (const [m, p] of [['GET', '/'], ['DELETE', '/api/repos'], ['POST', '/api/users'], ['GET', '/api/repos/a/b/c'], ['GET', '/alice/demo.git/objects/info/packs'], ['GET', '/alice/demo/info/refs']]) {
      expect(matchRoute(m!, p!)).toBeUndefined();
    }
  });
});

describe('request target', () => {
  it('when the target is a plain path, then path and query split on the first ?', () => {
    expect(splitTarget('/alice/demo.git/info/refs?service=git-upload-pack')).toEqual({ path: '/alice/demo.git/info/refs', query: 'service=git-upload-pack' });
    expect(splitTarget('/api/user')).toEqual({ path: '/api/user', query: '' });
  });
  it('when the target starts with // or is not a path, then it has no route (never read as a host)', () => {
    expect(splitTarget('//evil/api/repos/alice/demo')).toBeUndefined();
    expect(splitTarget('http://evil/api/user')).toBeUndefined();
    expect(splitTarget('*')).toBeUndefined();
  });
  it('when a path holds .. segments, then it is routed as written, so it matches nothing a service serves', () => {
    expect(matchRoute('GET', '/api/repos/alice/secret/../demo/branches')).toBeUndefined();
  });
});

describe('site routes (README "The web")', () => {
  it('when a path is a page (home, a user, a repository, its files, the site own /-/ pages), then web answers it', () => {
    for (const p of ['/', '/alice', '/alice/demo', '/alice/demo/-/tree/feature/x/src', '/-/sign-in', '/-/static/site.css']) {
      expect(matchSiteRoute('GET', p)).toEqual({ upstream: 'web', auth: 'optional', surface: 'web' });
    }
    expect(matchSiteRoute('POST', '/-/sign-in')?.upstream).toBe('web');
  });
  it('when a path is the API, git, health or metrics, then it is no page', () => {
    for (const p of ['/api', '/api/nothing', '/api/repos/a/b/nothing', '/alice/demo.git', '/alice/demo.git/objects/info/packs', '/healthz', '/readyz', '/metrics']) {
      expect([p, matchSiteRoute('GET', p)]).toEqual([p, undefined]);
    }
    expect(matchSiteRoute('DELETE', '/alice/demo')).toBeUndefined();
  });
});

describe('OAuth2 provider routes (docs/decisions/oauth2-provider.md#paths)', () => {
  it('when a path is one of the provider protocol endpoints or discovery, then accounts answers it with the client credential untouched', () => {
    for (const [m, p] of [['GET', '/.well-known/openid-configuration'], ['GET', '/login/oauth/authorize'], ['GET', '/login/oauth/authorize/abc'], ['POST', '/login/oauth/access_token'], ['GET', '/login/oauth/userinfo'], ['POST', '/login/oauth/userinfo'], ['GET', '/login/oauth/keys'], ['POST', '/login/oauth/revoke']] as const) {
      expect([p, matchRoute(m, p)]).toEqual([p, { upstream: 'accounts', auth: 'optional', surface: 'oauth' }]);
    }
  });
  it('when a path is Gitea applications API, then accounts answers it and a credential is required', () => {
    for (const p of ['/api/v1/user/applications/oauth2', '/api/v1/user/applications/oauth2/7']) {
      expect(matchRoute('GET', p)).toEqual({ upstream: 'accounts', auth: 'required', surface: 'api' });
    }
  });
  it('when a path is any other of Gitea\'s API, then gitea-api answers it, not authenticated at the edge (docs/decisions/gitea-api.md#a-face-over-the-api)', () => {
    for (const [m, p] of [['GET', '/api/v1/version'], ['GET', '/api/v1'], ['GET', '/api/v1/user/repos'], ['POST', '/api/v1/user/repos']] as const) {
      expect([p, matchRoute(m, p)]).toEqual([p, { upstream: 'gitea-api', auth: 'optional', surface: 'gitea' }]);
    }
    // A write under a repository names it too (the face reads the caller from the signed identity), never kept at the edge.
    for (const [m, p] of [['POST', '/api/v1/repos/alice/demo/pulls'], ['PATCH', '/api/v1/repos/alice/demo/pulls/1'], ['DELETE', '/api/v1/repos/alice/demo/hooks/1'], ['PUT', '/api/v1/repos/alice/demo/contents/a']] as const) {
      expect([p, matchRoute(m, p, 'ref=main')]).toEqual([p, { upstream: 'gitea-api', auth: 'optional', surface: 'gitea', repo: { owner: 'alice', name: 'demo' } }]);
    }
    expect(matchRoute('GET', '/api/v1x')).toBeUndefined();
  });
  it('when a Gitea read names a repository, then it names it for admission; when it reads content made of browse answers alone, then the edge may keep it (docs/decisions/gitea-api.md#warm-reads-at-the-edge)', () => {
    const repo = { owner: 'alice', name: 'demo' };
    for (const p of ['/api/v1/repos/alice/demo', '/api/v1/repos/alice/demo/pulls/1', '/api/v1/repos/alice/demo/pulls/1/files', '/api/v1/repos/alice/demo/branches', '/api/v1/repos/alice/demo/branches/main', '/api/v1/repos/alice/demo/commits/main/status', '/api/v1/repos/alice/demo/commits/main/statuses', '/api/v1/repos/alice/demo/hooks']) {
      expect([p, matchRoute('GET', p)]).toEqual([p, { upstream: 'gitea-api', auth: 'optional', surface: 'gitea', repo }]);
    }
    for (const p of ['/api/v1/repos/alice/demo/contents', '/api/v1/repos/alice/demo/contents/src/a.ts', '/api/v1/repos/alice/demo/raw/src/a.ts', '/api/v1/repos/alice/demo/git/trees/main', '/api/v1/repos/alice/demo/git/commits/' + 'a'.repeat(40), '/api/v1/repos/alice/demo/commits', '/api/v1/repos/alice/demo/tags', '/api/v1/repos/alice/demo/compare/main...dev']) {
      expect([p, matchRoute('GET', p, 'ref=main')]).toEqual([p, { upstream: 'gitea-api', auth: 'optional', surface: 'gitea', repo, edgeRead: true }]);
      expect(matchRoute('HEAD', p)?.edgeRead).toBe(true);
    }
    // A credential in the query is the face's to read: such a read is never answered at the edge.
    expect(matchRoute('GET', '/api/v1/repos/alice/demo/contents/a', 'ref=main&token=abc')).toEqual({ upstream: 'gitea-api', auth: 'optional', surface: 'gitea', repo });
    expect(matchRoute('GET', '/api/v1/repos/alice/demo/contents/a', 'access%5Ftoken=abc')?.edgeRead).toBeUndefined();
    expect(matchRoute('GET', '/api/v1/repos/alice/demo/contents/a', 'tokens=abc')?.edgeRead).toBe(true);
    expect(matchRoute('GET', '/api/v1/repos/al%2Fice/demo/contents/a')).toEqual({ upstream: 'gitea-api', auth: 'optional', surface: 'gitea' });
  });
  it('when a Gitea read lists pull requests, then the edge may keep it by the facts version too; a write to the list or a query credential, never (docs/decisions/pulls-at-the-edge.md)', () => {
    const repo = { owner: 'alice', name: 'demo' };
    expect(matchRoute('GET', '/api/v1/repos/alice/demo/pulls', 'state=open&limit=50')).toEqual({ upstream: 'gitea-api', auth: 'optional', surface: 'gitea', repo, edgeRead: true, edgeFacts: true });
    expect(matchRoute('HEAD', '/api/v1/repos/alice/demo/pulls')?.edgeFacts).toBe(true);
    expect(matchRoute('POST', '/api/v1/repos/alice/demo/pulls')).toEqual({ upstream: 'gitea-api', auth: 'optional', surface: 'gitea', repo });
    expect(matchRoute('GET', '/api/v1/repos/alice/demo/pulls', 'token=abc')).toEqual({ upstream: 'gitea-api', auth: 'optional', surface: 'gitea', repo });
    // Only a list shows facts: the content reads stay kept by the refs alone.
    expect(matchRoute('GET', '/api/v1/repos/alice/demo/contents/a')?.edgeFacts).toBeUndefined();
  });
  it('when a path asks the caller\'s permission on a repository, then accounts answers a read of it', () => {
    expect(matchRoute('GET', '/api/repos/alice/demo/permission')).toEqual({ upstream: 'accounts', auth: 'optional', surface: 'api', repo: { owner: 'alice', name: 'demo' } });
    expect(matchRoute('POST', '/api/repos/alice/demo/permission')).toBeUndefined();
  });
  it('when a path is the web consent page, then it stays a page of the site', () => {
    expect(matchRoute('GET', '/-/oauth/authorize/abc')).toBeUndefined();
    expect(matchSiteRoute('GET', '/-/oauth/authorize/abc')?.upstream).toBe('web');
  });
});
