import type { Request, Response } from 'express';
import { AppError, notFound, tooLarge, unauthenticated } from '@githost/errors';
import { canRead, verifyLfsActionGrant, type Principal, type RepoContext } from '@githost/identity';
import { REQUEST_ID_HEADER } from '@githost/logging';
import type { Authentication } from '../clients/accounts.js';
import { isRejection, type CachedAccountsGateway } from '../clients/cached-accounts.js';
import { parseAuthorization, type Credential } from './credentials.js';
import { denyAnonymous, denyRepository, type Denial } from './access.js';
import { capPermission, denyScope } from './scopes.js';
import { declaredTooLarge } from '../request-checks/body-limit.js';
import { clientOf } from './client-forwarding.js';
import { markChallenged, type RateClient, type RateLimitGate } from './rate-limit.js';
import { matchRoute, matchSiteRoute, splitTarget, type RouteMatch } from './routes.js';
import { staleAccessAfter } from './stale-access.js';
import type { Admission } from '../request-state.js';

const CHALLENGE = 'Basic realm="githost"';

export interface AdmissionDeps {
  accounts: CachedAccountsGateway;
  withinRateLimit: RateLimitGate;
  /** A web upstream is configured: paths outside the API and git are its pages (services/web/README.md#one-path-for-access-control);
   *  without one, they have no route, as before the site existed. */
  site?: boolean;
  /** GITHOST_INTERNAL_SECRET: checks the grants of LFS batch answers. */
  internalSecret: string;
}

/** Resolves to what the request was admitted as, or undefined when it has been answered already
 *  (429); every refusal rejects with an AppError. */
export type Admit = (req: Request, res: Response) => Promise<Admission | undefined>;

/**
 * Decides whether a request gets in and as whom, in the order gateway/README.md#what-it-does-to-a-request-in-order
 * gives: authentication, rate limit, route, credential and scope checks, declared body size,
 * repository access. Changes nothing on the request but the challenge header; forwarding signs it.
 */
export function createAdmission({ accounts, withinRateLimit, site = false, internalSecret }: AdmissionDeps): Admit {
  return async (req, res) => {
    const target = splitTarget(req.url);
    const route = target && (matchRoute(req.method, target.path, target.query) ?? (site ? matchSiteRoute(req.method, target.path) : undefined));
    // Low-cardinality label for the shared HTTP latency histogram: which service, which surface.
    if (route) res.locals.routeLabel = `${route.upstream}/${route.surface}`;
    const requestId = String(req.headers[REQUEST_ID_HEADER]);
    // A page is not an API call: the web signs in through the API with the browser's session, and
    // each API call it makes is authenticated and counted there (services/web/README.md#one-path-for-access-control).
    // Gitea's API likewise: every githost call it makes for the request is admitted here as the caller
    // (docs/decisions/gitea-api.md#a-face-over-the-api).
    if (route?.surface === 'gitea' && route.repo) return { route, requestId, ...(await giteaReader(accounts, req, route, requestId)) };
    if (route?.surface === 'web' || route?.surface === 'gitea') return { route, principal: null, repo: null, requestId };
    // The provider authenticates its own callers (a client's secret, an access token at userinfo)
    // and answers in OAuth's error format; the edge only counts the address.
    if (route?.surface === 'oauth') {
      const anonymous: RateClient = { anonymous: true, credential: false, address: clientOf(req, req.ip ?? '').address };
      if (!(await withinRateLimit(req, res, anonymous, 'api'))) return undefined;
      const staleOnSuccess = staleAccessAfter(req.method, target!.path, route, null, null, accounts);
      return { route, principal: null, repo: null, requestId, ...(staleOnSuccess ? { staleOnSuccess } : {}) };
    }

    // CONTRACT §9 Access: a present but invalid credential is 401 everywhere, before any lookup.
    let invalidCredential: AppError | undefined;
    const credential = parseAuthorization(req.headers.authorization);
    const refuse = (denial: Denial): never => {
      if (denial.challenge) res.setHeader('WWW-Authenticate', CHALLENGE);
      // A git client's credential-less first leg: it comes back with its token, so the address's
      // git budget gives this one back (docs/operating.md#rate-limits-gateway).
      if (denial.challenge && credential.kind === 'none' && route?.surface === 'git') markChallenged(res);
      throw denial.error;
    };
    const authentication = await authenticate(accounts, credential, requestId, (grant) => lfsActionAuthentication(grant, route, internalSecret)).catch((err: unknown) => {
      if (err instanceof AppError && err.kind === 'unauthenticated') {
        invalidCredential = err;
        return null;
      }
      throw err;
    });
    const principal = authentication?.principal ?? null;
    // Counted before anything else is looked up; a bad credential counts against the address.
    // An LFS action's grant counts against its user, like a token: a push of many objects sends
    // one request per object and must not spend the address's anonymous budget.
    const client: RateClient =
      principal && credential.kind === 'token'
        ? { token: credential.token, userId: principal.user_id }
        : principal && credential.kind === 'lfs-action'
          ? { token: `lfs-action:${principal.user_id ?? principal.username}`, userId: principal.user_id }
          : { anonymous: true, credential: credential.kind !== 'none', address: clientOf(req, req.ip ?? '').address };
    // An object transfer carrying its batch's grant spends the LFS budget; the batch (the operation)
    // and everything else on git's paths spend the git one (docs/decisions/shared-rate-limits.md#lfs-object-transfers).
    const surface = route?.surface !== 'git' ? 'api' : principal && credential.kind === 'lfs-action' && route.lfsObject ? 'lfs' : 'git';
    if (!(await withinRateLimit(req, res, client, surface))) return undefined;
    if (invalidCredential) refuse({ error: invalidCredential, challenge: route?.surface === 'git' });
    if (!route) throw new AppError('not_found', 'Not found');
    const anonymousDenial = denyAnonymous(route, principal);
    if (anonymousDenial) refuse(anonymousDenial);
    const scopeDenial = denyScope(route, req.method, authentication);
    if (scopeDenial) refuse(scopeDenial);
    if (route.surface !== 'git' && declaredTooLarge(req)) throw tooLarge('Request body too large');

    const repo = route.repo ? await repositoryAccess(accounts, route, principal, authentication, requestId, refuse) : null;
    const staleOnSuccess = staleAccessAfter(req.method, target!.path, route, principal, repo, accounts);
    return { route, principal, repo, requestId, ...(staleOnSuccess ? { staleOnSuccess } : {}) };
  };
}

async function authenticate(accounts: CachedAccountsGateway, credential: Credential, requestId: string, lfsAction: (grant: string) => Authentication): Promise<Authentication | null> {
  if (credential.kind === 'none') return null;
  if (credential.kind === 'malformed') throw unauthenticated();
  if (credential.kind === 'lfs-action') return lfsAction(credential.grant);
  try {
    return await accounts.authenticate(credential.token, requestId);
  } catch (err) {
    if (err instanceof AppError && isRejection(err)) throw unauthenticated();
    throw err;
  }
}

/** The repository the route names with the caller's (capped) permission; refuses when the caller
 *  may not have it. */
async function repositoryAccess(
  accounts: CachedAccountsGateway,
  route: RouteMatch,
  principal: Principal | null,
  authentication: Authentication | null,
  requestId: string,
  refuse: (denial: Denial) => never,
): Promise<RepoContext | null> {
  const { owner, name } = route.repo!;
  const lookup = (fresh: boolean) =>
    accounts.authorize(principal, owner, name, requestId, fresh).then(
      (found) => capPermission(found, authentication),
      (err: unknown) => {
        // A name accounts rejects as malformed cannot exist either.
        if (err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation')) return null;
        // A user suspended since their token's answer was cached (services/accounts/README.md#users-and-tokens).
        if (err instanceof AppError && err.kind === 'unauthenticated') refuse({ error: unauthenticated(), challenge: route.surface === 'git' });
        throw err;
      },
    );
  let repo = await lookup(false);
  let repoDenial = denyRepository(route, principal, repo);
  // A cached answer may predate a grant (a collaborator just added): deny only on a fresh one.
  // Not-found answers are never cached, so they are fresh already.
  if (repoDenial && repo !== null) {
    repo = await lookup(true);
    repoDenial = denyRepository(route, principal, repo);
  }
  if (repoDenial) refuse(repoDenial);
  return repo;
}

/**
 * A Gitea read of a repository (docs/decisions/gitea-api.md#warm-reads-at-the-edge): the caller and
 * the repository as `repositoryAccess` decides them, but never a refusal. A credential the edge
 * cannot take, or a repository the caller may not read, leaves the request as every other Gitea
 * request is (no caller, no repository): the face then answers it in Gitea's shape from its own
 * calls, which this edge refuses as it refuses the API's. With the repository, the face takes its
 * default branch and the caller's permission from the signed identity, and the edge may answer
 * the read from what it keeps (forwarding/forward.ts), counting it against `rateClient`.
 */
async function giteaReader(accounts: CachedAccountsGateway, req: Request, route: RouteMatch, requestId: string): Promise<Pick<Admission, 'principal' | 'repo' | 'rateClient'>> {
  const none = { principal: null, repo: null };
  const credential = parseAuthorization(req.headers.authorization);
  if (credential.kind === 'malformed' || credential.kind === 'lfs-action') return none;
  try {
    const authentication = credential.kind === 'token' ? await accounts.authenticate(credential.token, requestId) : null;
    const principal = authentication?.principal ?? null;
    const denied = (): never => {
      throw notFound('Repository not found');
    };
    const repo = await repositoryAccess(accounts, route, principal, authentication, requestId, denied);
    if (!repo || !canRead(repo.permission)) return none;
    const rateClient: RateClient = credential.kind === 'token' ? { token: credential.token } : { anonymous: true, credential: false, address: clientOf(req, req.ip ?? '').address };
    return { principal, repo, rateClient };
  } catch (err) {
    // A refusal, a token accounts rejects, or accounts unreachable: the face's own calls answer it.
    if (err instanceof AppError) return none;
    throw err;
  }
}

/**
 * An LFS action's grant (docs/decisions/lfs.md) authenticates its principal for the one object it
 * names, on that repository's object endpoint only, and writes only when it was granted for an
 * upload; the repository access is then looked up as for any credential, so a revoked
 * collaborator's grant opens nothing.
 */
function lfsActionAuthentication(value: string, route: RouteMatch | undefined, secret: string): Authentication {
  const grant = verifyLfsActionGrant(value, secret);
  if (!grant || !route?.lfs || !route.repo || grant.repository.toLowerCase() !== `${route.repo.owner}/${route.repo.name}`.toLowerCase()) throw unauthenticated();
  const scopes: Authentication['scopes'] = grant.operation === 'upload' ? ['read', 'write'] : ['read'];
  const ceiling = grant.max_permission ? { maxPermission: grant.max_permission } : {};
  // git-lfs-authenticate's credential (no oid): the repository's LFS API, writing only when
  // granted for an upload (the read scope refuses every write before anything is looked up).
  if (grant.oid === null) return { principal: grant.principal, scopes, expiresAt: grant.expires_at, ...ceiling };
  const object = route.lfsObject;
  if (!object || grant.oid !== object.oid || (object.write && grant.operation !== 'upload')) throw unauthenticated();
  return { principal: grant.principal, scopes, expiresAt: grant.expires_at, ...ceiling };
}
