import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import express, { type Request, type Response } from 'express';
import { AppError, notFound, unauthenticated, unavailable } from '@githost/errors';
import { signLfsActionGrant, type LfsActionGrant, type Principal, type RepoContext } from '@githost/identity';
import { createAdmission, type Admit } from './admit.js';
import type { Authentication } from '../clients/accounts.js';
import { cachedAccounts, type CachedAccountsGateway } from '../clients/cached-accounts.js';
import { READ_SCOPE_ONLY } from './scopes.js';
import { createRateLimitGate, type RateLimits } from './rate-limit.js';
import type { Admission } from '../request-state.js';

const alice: Principal = { user_id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false };
const TOKENS: Record<string, Authentication> = {
  'alice-token': { principal: alice, scopes: ['read', 'write'], expiresAt: null },
  'reader-token': { principal: alice, scopes: ['read'], expiresAt: null },
};
const demo: RepoContext = { id: 'r-1', owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission: 'admin', owner_id: 'u-alice' };

type Lookup = { who: string; fresh: boolean };

/** Accounts as the cache in front of it answers, from tables, recording every call. */
function fakeAccounts(authorize: (principal: Principal | null, fresh: boolean) => RepoContext = (p) => ({ ...demo, permission: p ? 'admin' : 'read' })) {
  const calls = { authenticate: [] as string[], authorize: [] as Lookup[], forgotten: [] as string[] };
  const accounts: CachedAccountsGateway = {
    async authenticate(token) {
      calls.authenticate.push(token);
      const found = TOKENS[token];
      if (!found) throw unauthenticated('Invalid token');
      return found;
    },
    async authorize(principal, owner, name, _requestId, fresh = false) {
      calls.authorize.push({ who: principal?.username ?? 'anonymous', fresh });
      if (owner !== 'alice' || name !== 'demo') throw notFound('Repository not found');
      return authorize(principal, fresh);
    },
    // Admission always asks; only the warm-read front peeks.
    peekAuthentication: () => undefined,
    peekAuthorization: () => undefined,
    reachable: async () => true,
    close: () => undefined,
    forgetRepository: (id) => calls.forgotten.push(`repo ${id}`),
    forgetUser: (id) => calls.forgotten.push(`user ${id}`),
    forgetUsername: (name) => calls.forgotten.push(`username ${name}`),
    forgetAuthentications: () => calls.forgotten.push('all authentications'),
  };
  return { accounts, calls };
}

const NO_LIMITS: RateLimits = { perTokenPerMinute: 0, anonymousPerMinute: 0 };
const ADMISSION_SECRET = 'admission-test-secret';

function admission(accounts: CachedAccountsGateway, limits = NO_LIMITS): Admit {
  return createAdmission({ accounts, withinRateLimit: createRateLimitGate(limits), internalSecret: ADMISSION_SECRET });
}

interface Outcome {
  admitted?: Admission;
  refused?: AppError;
  req: Request;
  res: Response;
}

/** Runs admission on one request through express's own request and response objects, on a
 *  socket that goes nowhere: no network. */
function attempt(admit: Admit, method: string, url: string, headers: Record<string, string> = {}): Promise<Outcome> {
  const socket = new Duplex({ read() {}, write: (_chunk, _encoding, done) => done() });
  Object.assign(socket, { remoteAddress: '203.0.113.7' });
  const req = new IncomingMessage(socket as unknown as Socket);
  req.method = method;
  req.url = url;
  req.headers = { 'x-request-id': 'req-1', ...headers };
  const res = new ServerResponse(req);
  res.assignSocket(socket as unknown as Socket);
  return new Promise((resolve) => {
    const app = express();
    app.use((request, response) => {
      admit(request, response).then(
        (admitted) => resolve({ admitted, req: request, res: response }),
        (err: unknown) => resolve({ refused: err as AppError, req: request, res: response }),
      );
    });
    app(req, res);
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const refusal = (o: Outcome) => (o.refused ? [o.refused.kind, o.refused.message, o.res.getHeader('www-authenticate') ?? null] : 'admitted');

describe('admission', () => {
  const OID = 'a'.repeat(64);
  const grant = (over: Partial<LfsActionGrant> = {}, secret = ADMISSION_SECRET) => ({
    authorization: `RemoteAuth ${signLfsActionGrant({ principal: alice, repository: 'alice/demo', oid: OID, operation: 'download', expires_at: Date.now() + 60_000, ...over }, secret)}`,
  });

  it('when an LFS action carries its batch\'s grant, then it is admitted as the grant\'s principal for that one object only', async () => {
    const { accounts, calls } = fakeAccounts();
    const admit = admission(accounts);
    const download = await attempt(admit, 'GET', `/alice/demo.git/info/lfs/objects/${OID}`, grant());
    expect(download.admitted?.principal).toEqual(alice);
    expect(download.admitted?.repo?.permission).toBe('read');
    const upload = await attempt(admit, 'PUT', `/alice/demo.git/info/lfs/objects/${OID}`, grant({ operation: 'upload' }));
    expect(upload.admitted?.repo?.permission).toBe('admin');
    expect(calls.authenticate).toEqual([]);
    const challenged = ['unauthenticated', 'Authentication required', 'Basic realm="githost"'];
    expect(refusal(await attempt(admit, 'PUT', `/alice/demo.git/info/lfs/objects/${OID}`, grant()))).toEqual(challenged);
    expect(refusal(await attempt(admit, 'GET', `/alice/demo.git/info/lfs/objects/${'b'.repeat(64)}`, grant()))).toEqual(challenged);
    expect(refusal(await attempt(admit, 'GET', `/alice/demo.git/info/lfs/objects/${OID}`, grant({ repository: 'alice/other' })))).toEqual(challenged);
    expect(refusal(await attempt(admit, 'GET', `/alice/demo.git/info/lfs/objects/${OID}`, grant({ expires_at: Date.now() - 1 })))).toEqual(challenged);
    expect(refusal(await attempt(admit, 'GET', `/alice/demo.git/info/lfs/objects/${OID}`, grant({}, 'another-secret')))).toEqual(challenged);
    expect(refusal(await attempt(admit, 'POST', '/alice/demo.git/info/lfs/locks', grant({ operation: 'upload' })))).toEqual(challenged);
  });

  it('when git-lfs-authenticate\'s grant (no object) is presented, then it opens the repository\'s LFS routes only, writing only for an upload, never above its ceiling', async () => {
    const { accounts } = fakeAccounts();
    const admit = admission(accounts);
    const download = grant({ oid: null });
    expect((await attempt(admit, 'POST', '/alice/demo.git/info/lfs/objects/batch', download)).admitted?.repo?.permission).toBe('read');
    expect((await attempt(admit, 'GET', `/alice/demo.git/info/lfs/objects/${OID}`, download)).admitted?.principal).toEqual(alice);
    expect(refusal(await attempt(admit, 'POST', '/alice/demo.git/info/lfs/locks', download))).toEqual(['forbidden', READ_SCOPE_ONLY, null]);
    expect((await attempt(admit, 'POST', '/alice/demo.git/info/lfs/locks', grant({ oid: null, operation: 'upload' }))).admitted?.repo?.permission).toBe('admin');
    // A deploy key's grant acts as the owner but never above the key's write.
    expect((await attempt(admit, 'PUT', `/alice/demo.git/info/lfs/objects/${OID}`, grant({ oid: null, operation: 'upload', max_permission: 'write' }))).admitted?.repo?.permission).toBe('write');
    const challenged = ['unauthenticated', 'Authentication required', 'Basic realm="githost"'];
    // Not a credential for git itself nor for the API.
    expect(refusal(await attempt(admit, 'GET', '/alice/demo.git/info/refs?service=git-upload-pack', download))).toEqual(challenged);
    expect(refusal(await attempt(admit, 'GET', '/api/repos/alice/demo', download))[0]).toBe('unauthenticated');
  });

  it('when a transfer\'s objects carry grants, then accounts is asked once for the repository, not again after each upload and verify', async () => {
    let asked = 0;
    const accounts = cachedAccounts({
      authenticate: () => Promise.reject(unauthenticated('Invalid token')),
      authorize: async () => {
        asked++;
        return demo;
      },
      reachable: async () => true,
      close: () => undefined,
    });
    const admit = admission(accounts);
    for (const oid of ['a', 'b', 'c'].map((c) => c.repeat(64))) {
      const upload = grant({ oid, operation: 'upload' });
      for (const [method, path] of [['PUT', `/alice/demo.git/info/lfs/objects/${oid}`], ['POST', `/alice/demo.git/info/lfs/objects/${oid}/verify`]] as const) {
        const { admitted } = await attempt(admit, method, path, upload);
        expect(admitted?.repo?.permission).toBe('admin');
        admitted?.staleOnSuccess?.(); // as the proxy does on the 2xx
      }
    }
    expect(asked).toBe(1);
  });

  it('when LFS actions carry grants, then they count against their user, not the address\'s anonymous git budget', async () => {
    const { accounts } = fakeAccounts();
    const admit = admission(accounts, { ...NO_LIMITS, git: { perTokenPerMinute: 0, perAddressPerMinute: 1 } });
    for (let i = 0; i < 3; i++) {
      const o = await attempt(admit, 'GET', `/alice/demo.git/info/lfs/objects/${OID}`, grant());
      expect(o.admitted?.principal).toEqual(alice);
    }
  });

  it('when an anonymous caller reads a public repository, then it is admitted with the repository and no principal', async () => {
    const { accounts, calls } = fakeAccounts();
    const o = await attempt(admission(accounts), 'GET', '/api/repos/alice/demo/merge-requests');
    expect(o.admitted).toEqual({ route: { upstream: 'merge-requests', auth: 'optional', surface: 'api', repo: { owner: 'alice', name: 'demo' } }, principal: null, repo: { ...demo, permission: 'read' }, requestId: 'req-1' });
    expect(o.res.locals.routeLabel).toBe('merge-requests/api');
    expect(calls).toEqual({ authenticate: [], authorize: [{ who: 'anonymous', fresh: false }], forgotten: [] });
  });

  it('when a valid token calls, then it is admitted as its principal, and the request is left unsigned', async () => {
    const { accounts } = fakeAccounts();
    const o = await attempt(admission(accounts), 'GET', '/api/repos/alice/demo', bearer('alice-token'));
    expect(o.admitted?.principal).toEqual(alice);
    expect(o.admitted?.repo?.permission).toBe('admin');
    expect(o.admitted?.route.upstream).toBe('accounts');
    // Forwarding signs; admission leaves the credential where it was.
    expect(o.req.headers.authorization).toBe('Bearer alice-token');
    expect(Object.keys(o.req.headers).filter((h) => h.startsWith('x-githost-'))).toEqual([]);
  });

  it('when a credential is invalid or malformed, then 401 before any lookup; on git transport with the challenge', async () => {
    const { accounts, calls } = fakeAccounts();
    const admit = admission(accounts);
    expect(refusal(await attempt(admit, 'GET', '/api/repos/alice/demo', bearer('made-up')))).toEqual(['unauthenticated', 'Authentication required', null]);
    expect(refusal(await attempt(admit, 'GET', '/alice/demo.git/info/refs?service=git-upload-pack', bearer('made-up')))).toEqual(['unauthenticated', 'Authentication required', 'Basic realm="githost"']);
    expect(refusal(await attempt(admit, 'GET', '/api/repos/alice/demo', { authorization: 'Bearer two words' }))).toEqual(['unauthenticated', 'Authentication required', null]);
    expect(calls.authenticate).toEqual(['made-up', 'made-up']);
    expect(calls.authorize).toEqual([]);
  });

  it('when accounts cannot answer Authenticate, then that failure passes on, not a 401', async () => {
    const { accounts } = fakeAccounts();
    accounts.authenticate = async () => {
      throw unavailable('accounts down');
    };
    expect(refusal(await attempt(admission(accounts), 'GET', '/api/repos/alice/demo', bearer('alice-token')))).toEqual(['unavailable', 'accounts down', null]);
  });

  it('when no route matches, then 404 Not found; when a route requires a credential and has none, then 401', async () => {
    const { accounts, calls } = fakeAccounts();
    const admit = admission(accounts);
    const nowhere = await attempt(admit, 'GET', '/nowhere');
    expect(refusal(nowhere)).toEqual(['not_found', 'Not found', null]);
    expect(nowhere.res.locals.routeLabel).toBeUndefined();
    expect(refusal(await attempt(admit, 'GET', '/api/user'))).toEqual(['unauthenticated', 'Authentication required', null]);
    expect(refusal(await attempt(admit, 'POST', '/alice/demo.git/git-receive-pack'))).toEqual(['unauthenticated', 'Authentication required', 'Basic realm="githost"']);
    expect(calls.authorize).toEqual([]);
  });

  it('when a web upstream is configured, then a page path is admitted for the web without any credential check or lookup; the API still is not', async () => {
    const { accounts, calls } = fakeAccounts();
    const admit = createAdmission({ accounts, withinRateLimit: createRateLimitGate(NO_LIMITS), site: true, internalSecret: ADMISSION_SECRET });
    const home = await attempt(admit, 'GET', '/alice/demo/-/tree/main', bearer('made-up'));
    expect([home.admitted?.route, home.admitted?.principal]).toEqual([{ upstream: 'web', auth: 'optional', surface: 'web' }, null]);
    expect(refusal(await attempt(admit, 'GET', '/api/nothing'))).toEqual(['not_found', 'Not found', null]);
    expect([calls.authenticate, calls.authorize]).toEqual([[], []]);
  });

  it('when a Gitea API path comes with any credential, even a made-up one, then it is admitted for gitea-api without a refusal: its own calls come back through here', async () => {
    const { accounts, calls } = fakeAccounts();
    const admit = admission(accounts);
    const other = await attempt(admit, 'POST', '/api/v1/user/repos', bearer('made-up'));
    expect([other.admitted?.route, other.admitted?.principal, other.admitted?.repo]).toEqual([{ upstream: 'gitea-api', auth: 'optional', surface: 'gitea' }, null, null]);
    expect([calls.authenticate, calls.authorize]).toEqual([[], []]);
    const write = await attempt(admit, 'POST', '/api/v1/repos/alice/demo/pulls', bearer('made-up'));
    expect([write.refused, write.admitted?.route.upstream, write.admitted?.principal, write.admitted?.repo]).toEqual([undefined, 'gitea-api', null, null]);
    const read = await attempt(admit, 'GET', '/api/v1/repos/alice/demo/contents/a.txt', bearer('made-up'));
    expect([read.refused, read.admitted?.principal, read.admitted?.repo, read.admitted?.rateClient]).toEqual([undefined, null, null, undefined]);
  });

  it('when a Gitea read names a repository the caller may read, then the caller and the repository are admitted for the face, with whom an edge answer counts against', async () => {
    const { accounts } = fakeAccounts();
    const admit = admission(accounts);
    const owner = await attempt(admit, 'GET', '/api/v1/repos/alice/demo/contents/a.txt', { authorization: 'token alice-token' });
    expect([owner.admitted?.principal, owner.admitted?.repo, owner.admitted?.rateClient]).toEqual([alice, demo, { token: 'alice-token' }]);
    // A write names the caller to the face as well (its author check: docs/decisions/gitea-api.md#errors).
    const edit = await attempt(admit, 'PATCH', '/api/v1/repos/alice/demo/pulls/1', { authorization: 'token alice-token' });
    expect([edit.refused, edit.admitted?.principal, edit.admitted?.repo]).toEqual([undefined, alice, demo]);
    // A read-only token's permission is capped as on githost's own routes.
    expect((await attempt(admit, 'GET', '/api/v1/repos/alice/demo/pulls', bearer('reader-token'))).admitted?.repo?.permission).toBe('read');
    const anonymous = await attempt(admit, 'GET', '/api/v1/repos/alice/demo/raw/a.txt');
    expect([anonymous.admitted?.principal, anonymous.admitted?.repo?.permission, anonymous.admitted?.rateClient]).toEqual([null, 'read', { anonymous: true, credential: false, address: '203.0.113.7' }]);
  });

  it('when a stranger reads a private repository or an unknown one through Gitea, then it is admitted with no repository, not refused: the face answers the 404 in Gitea\'s shape', async () => {
    const { accounts, calls } = fakeAccounts((p) => ({ ...demo, private: true, permission: p ? 'admin' : 'none' }));
    const admit = admission(accounts);
    const stranger = await attempt(admit, 'GET', '/api/v1/repos/alice/demo/contents/a.txt');
    expect([stranger.refused, stranger.admitted?.route.upstream, stranger.admitted?.repo, stranger.admitted?.rateClient]).toEqual([undefined, 'gitea-api', null, undefined]);
    // A cached refusal is asked again fresh before it stands, as on githost's own routes.
    expect(calls.authorize).toEqual([{ who: 'anonymous', fresh: false }, { who: 'anonymous', fresh: true }]);
    const unknown = await attempt(admit, 'GET', '/api/v1/repos/alice/other/contents/a.txt', { authorization: 'token alice-token' });
    expect([unknown.refused, unknown.admitted?.repo]).toEqual([undefined, null]);
  });

  it('when a read-only token writes, then 403 before the repository is looked up; when it reads, then its permission is capped to read', async () => {
    const { accounts, calls } = fakeAccounts();
    const admit = admission(accounts);
    expect(refusal(await attempt(admit, 'POST', '/api/repos/alice/demo/merge-requests', bearer('reader-token')))).toEqual(['forbidden', READ_SCOPE_ONLY, null]);
    expect(calls.authorize).toEqual([]);
    const read = await attempt(admit, 'GET', '/api/repos/alice/demo', bearer('reader-token'));
    expect(read.admitted?.repo?.permission).toBe('read');
  });

  it('when an API request declares a body over 1 MiB, then 413 before the repository is looked up; git transport has no limit', async () => {
    const { accounts, calls } = fakeAccounts();
    const admit = admission(accounts);
    const big = { ...bearer('alice-token'), 'content-length': String(2 * 1024 * 1024) };
    expect(refusal(await attempt(admit, 'POST', '/api/repos/alice/demo/merge-requests', big))).toEqual(['too_large', 'Request body too large', null]);
    expect(calls.authorize).toEqual([]);
    expect((await attempt(admit, 'POST', '/alice/demo.git/git-receive-pack', big)).admitted?.route.push).toBe(true);
  });

  it('when a private repository cannot be read, then it is hidden after a fresh look-up, worded by surface', async () => {
    const { accounts, calls } = fakeAccounts(() => ({ ...demo, private: true, permission: 'none' }));
    const admit = admission(accounts);
    expect(refusal(await attempt(admit, 'GET', '/api/repos/alice/demo', bearer('alice-token')))).toEqual(['not_found', 'Repository not found', null]);
    expect(refusal(await attempt(admit, 'GET', '/api/repos/alice/demo/branches', bearer('alice-token')))).toEqual(['not_found', 'Not found', null]);
    expect(calls.authorize.map((c) => c.fresh)).toEqual([false, true, false, true]);
  });

  it('when the cached answer predates a grant, then the fresh look-up admits', async () => {
    const { accounts, calls } = fakeAccounts((_p, fresh) => ({ ...demo, private: true, permission: fresh ? 'write' : 'none' }));
    const o = await attempt(admission(accounts), 'GET', '/api/repos/alice/demo', bearer('alice-token'));
    expect(o.admitted?.repo?.permission).toBe('write');
    expect(calls.authorize).toEqual([{ who: 'alice', fresh: false }, { who: 'alice', fresh: true }]);
  });

  it('when an anonymous git client asks for a missing repository, then it gets the challenge and its first leg is marked for the refund', async () => {
    const { accounts, calls } = fakeAccounts();
    const o = await attempt(admission(accounts), 'GET', '/alice/missing.git/info/refs?service=git-upload-pack');
    expect(refusal(o)).toEqual(['unauthenticated', 'Authentication required', 'Basic realm="githost"']);
    expect(o.res.locals.rateLimitChallenged).toBe(true);
    expect(calls.authorize).toEqual([{ who: 'anonymous', fresh: false }]);
  });

  it('when accounts says the caller is suspended, then 401 (git: with the challenge)', async () => {
    const { accounts } = fakeAccounts(() => {
      throw unauthenticated();
    });
    const admit = admission(accounts);
    expect(refusal(await attempt(admit, 'GET', '/api/repos/alice/demo', bearer('alice-token')))).toEqual(['unauthenticated', 'Authentication required', null]);
    const git = await attempt(admit, 'GET', '/alice/demo.git/info/refs?service=git-upload-pack', bearer('alice-token'));
    expect(refusal(git)).toEqual(['unauthenticated', 'Authentication required', 'Basic realm="githost"']);
    expect(git.res.locals.rateLimitChallenged).toBeUndefined();
  });

  it('when a change to a repository through accounts succeeds, then its cached access is forgotten, and only then', async () => {
    const { accounts, calls } = fakeAccounts();
    const o = await attempt(admission(accounts), 'PUT', '/api/repos/alice/demo/collaborators/bob', bearer('alice-token'));
    expect(calls.forgotten).toEqual([]);
    o.admitted?.staleOnSuccess?.();
    expect(calls.forgotten).toEqual(['repo r-1']);
  });

  it('when a budget is spent, then 429 before anything is looked up; tokens, addresses and git transport count apart', async () => {
    const { accounts, calls } = fakeAccounts();
    const admit = admission(accounts, { perTokenPerMinute: 1, anonymousPerMinute: 1, git: { perTokenPerMinute: 0, perAddressPerMinute: 0 } });
    expect((await attempt(admit, 'GET', '/api/repos/alice/demo')).admitted?.principal).toBeNull();
    const spent = await attempt(admit, 'GET', '/api/repos/alice/demo');
    expect(spent.admitted).toBeUndefined();
    expect(spent.refused).toBeUndefined();
    expect(spent.res.statusCode).toBe(429);
    expect(spent.res.getHeader('retry-after')).toBe('60');
    expect(calls.authorize).toHaveLength(1);
    // A made-up token counts against the address, whose budget is spent: 429, not 401.
    expect((await attempt(admit, 'GET', '/api/repos/alice/demo', bearer('made-up'))).res.statusCode).toBe(429);
    expect((await attempt(admit, 'GET', '/api/repos/alice/demo', bearer('alice-token'))).admitted?.principal).toEqual(alice);
    expect((await attempt(admit, 'GET', '/api/repos/alice/demo', bearer('alice-token'))).res.statusCode).toBe(429);
    expect((await attempt(admit, 'GET', '/alice/demo.git/info/refs?service=git-upload-pack')).admitted?.route.surface).toBe('git');
  });
});
