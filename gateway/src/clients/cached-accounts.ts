import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '@githost/errors';
import type { Principal, RepoContext } from '@githost/identity';
import type { AccountsGateway, Authentication } from './accounts.js';

export interface CacheTtls {
  /** A valid token's principal; short, so a revoked token or a suspended user stops working
   *  within seconds (and never past the token's expiry). */
  authenticatedMs: number;
  /** An invalid token; shorter still, so a token just created is not refused for long. */
  rejectedMs: number;
  /** A repository and the caller's permission on it. Not-found answers are never cached, so a
   *  repository just created is reachable at once; the gateway re-asks before denying on a cached
   *  answer, so a collaborator just added gets in at once too (only a removal takes this long). */
  authorizedMs: number;
}

export const DEFAULT_TTLS: CacheTtls = { authenticatedMs: 5_000, rejectedMs: 1_000, authorizedMs: 2_000 };

type AuthAnswer = { authentication: Authentication } | { rejected: AppError };

/**
 * Accounts answers cached briefly: a git clone makes two or three requests and an API client
 * many, each needing the same Authenticate and Authorize. Tokens are keyed by their sha256, so
 * the cache never holds a usable secret. Only definite answers are cached; an unreachable
 * accounts service is asked again next time.
 */
export type CacheObserver = (cache: 'authenticate' | 'authorize', result: 'hit' | 'miss') => void;

export interface CachedAccountsGateway extends AccountsGateway {
  /** The cached answer for a token that authenticated, without asking accounts; undefined when
   *  none is cached (or the cached answer is a refusal). */
  peekAuthentication(token: string): Authentication | undefined;
  /** The cached Authorize answer, without asking accounts; undefined when none is cached. */
  peekAuthorization(principal: Principal | null, owner: string, name: string): RepoContext | undefined;
  /** Drops every cached Authorize answer for the repository: its collaborators or settings just
   *  changed, and a removed collaborator must lose access at once, not when the entry expires. */
  forgetRepository(repositoryId: string): void;
  /** Drops every cached Authenticate answer for the user: one of their tokens was revoked, and
   *  the cache is keyed by token hashes, so which one is not known here. */
  forgetUser(userId: string): void;
  /** Drops every cached answer about the user (any letter case), and every cached refusal: a
   *  site admin changed, suspended, unsuspended or deleted them, or revoked one of their tokens. */
  forgetUsername(username: string): void;
  /** Drops every cached Authenticate answer: a site admin revoked a token whose owner is not
   *  known here. */
  forgetAuthentications(): void;
}

export function cachedAccounts(inner: AccountsGateway, ttls: CacheTtls = DEFAULT_TTLS, observe: CacheObserver = () => undefined): CachedAccountsGateway {
  const auth = new LRUCache<string, AuthAnswer>({ max: 10_000, ttl: ttls.authenticatedMs, ttlAutopurge: false });
  const repos = new LRUCache<string, RepoContext>({ max: 10_000, ttl: ttls.authorizedMs, ttlAutopurge: false });
  // Whose user id an Authorize answer was asked for, by (lowercased) username: a caller admitted
  // on an LFS action's grant has no cached Authenticate answer to name them
  // (docs/decisions/lfs.md#throughput), and a site admin's change by name must still drop theirs.
  const askedBy = new LRUCache<string, string>({ max: 10_000, ttl: ttls.authorizedMs, ttlAutopurge: false });
  const disabled = (ms: number) => ms <= 0;
  // When an entry expires under load, every request in flight misses at once: they share the one
  // call already asking (its answer is younger than any cached one they would have taken) instead
  // of sending accounts a burst of identical calls. Cleared by every forget, whose callers must
  // not get an answer asked for before it; `generation` keeps such an answer out of the cache.
  const authenticating = new Map<string, Promise<Authentication>>();
  const authorizing = new Map<string, Promise<RepoContext>>();
  let generation = 0;

  function shared<T>(pending: Map<string, Promise<T>>, key: string, load: (asked: number) => Promise<T>): Promise<T> {
    const call = load(generation).finally(() => {
      if (pending.get(key) === call) pending.delete(key);
    });
    pending.set(key, call);
    return call;
  }

  return {
    async authenticate(token, requestId) {
      const key = tokenKey(token);
      const hit = auth.get(key);
      observe('authenticate', hit ? 'hit' : 'miss');
      if (hit) {
        if ('rejected' in hit) throw hit.rejected;
        return hit.authentication;
      }
      return authenticating.get(key) ?? shared(authenticating, key, async (asked) => {
        try {
          const authentication = await inner.authenticate(token, requestId);
          // Never kept past the token's expiry: an expired token is refused at once.
          const ttl = Math.min(ttls.authenticatedMs, authentication.expiresAt === null ? Infinity : authentication.expiresAt - Date.now());
          if (!disabled(ttl) && asked === generation) auth.set(key, { authentication }, { ttl });
          return authentication;
        } catch (err) {
          if (err instanceof AppError && isRejection(err) && !disabled(ttls.rejectedMs) && asked === generation) auth.set(key, { rejected: err }, { ttl: ttls.rejectedMs });
          throw err;
        }
      });
    },
    async authorize(principal, owner, name, requestId, fresh = false) {
      const who = whoOf(principal);
      const key = repoKey(who, owner, name);
      const hit = fresh ? undefined : repos.get(key);
      observe('authorize', hit ? 'hit' : 'miss');
      if (hit) return hit;
      // A fresh lookup (before a denial) never takes an answer asked for before it was.
      const joined = fresh ? undefined : authorizing.get(key);
      return joined ?? shared(authorizing, key, async (asked) => {
        const repo = await inner.authorize(principal, owner, name, requestId);
        if (!disabled(ttls.authorizedMs) && asked === generation) {
          repos.set(key, repo);
          if (principal?.user_id) askedBy.set(principal.user_id, principal.username.toLowerCase());
        }
        return repo;
      });
    },
    peekAuthentication(token) {
      const hit = auth.get(tokenKey(token));
      if (!hit || 'rejected' in hit) return undefined;
      observe('authenticate', 'hit');
      return hit.authentication;
    },
    peekAuthorization(principal, owner, name) {
      const hit = repos.get(repoKey(whoOf(principal), owner, name));
      if (hit) observe('authorize', 'hit');
      return hit;
    },
    forgetRepository(repositoryId) {
      generation++;
      authorizing.clear();
      for (const [key, repo] of [...repos.entries()]) if (repo.id === repositoryId) repos.delete(key);
    },
    forgetUser(userId) {
      generation++;
      authenticating.clear();
      for (const [key, answer] of [...auth.entries()]) if ('authentication' in answer && answer.authentication.principal.user_id === userId) auth.delete(key);
    },
    forgetUsername(username) {
      generation++;
      authenticating.clear();
      authorizing.clear();
      const name = username.toLowerCase();
      const ids = new Set<string>();
      for (const [key, answer] of [...auth.entries()]) {
        // Whose token a cached refusal was is not known: all go, so an unsuspended user's
        // tokens work at once.
        if ('rejected' in answer) {
          auth.delete(key);
          continue;
        }
        const principal = answer.authentication.principal;
        if (principal.user_id && principal.username.toLowerCase() === name) {
          ids.add(principal.user_id);
          auth.delete(key);
        }
      }
      for (const [id, asker] of [...askedBy.entries()]) if (asker === name) ids.add(id);
      // An admin flag just changed leaves Authorize answers of either kind stale.
      for (const key of [...repos.keys()]) if (ids.has((JSON.parse(key) as string[])[0]!.split(':')[0]!)) repos.delete(key);
    },
    forgetAuthentications() {
      generation++;
      authenticating.clear();
      auth.clear();
    },
    reachable: () => inner.reachable(),
    close: () => inner.close(),
  };
}

/** Tokens are kept by their hash, never as usable secrets. */
function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** An Authorize answer's key: who asked, about which repository. */
function repoKey(who: string, owner: string, name: string): string {
  return JSON.stringify([who, owner, name]);
}

/** The Authorize cache's key for a caller: a site admin's answers differ with and without the
 *  admin scope. */
function whoOf(principal: Principal | null): string {
  if (principal === null) return 'anonymous';
  if (principal.user_id === null) return 'bootstrap-admin';
  return `${principal.user_id}:${principal.is_admin ? 'admin' : 'user'}`;
}

/** Answers that say "this token is no good", as opposed to "accounts could not answer". */
export function isRejection(err: AppError): boolean {
  return err.kind === 'unauthenticated' || err.kind === 'not_found' || err.kind === 'validation';
}
