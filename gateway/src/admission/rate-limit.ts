import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { BUDGETS, createLimitStores, gitBudgetKey, tokenKey, WINDOW_MS, type BudgetName, type LimitStores } from '@githost/rate-limits';
import { sendRefusal } from '../refusals.js';

/** GITHOST_LFS_RATE_LIMIT_PER_MINUTE's default: 3,000 objects pushed a minute (a PUT and a verify
 *  each), 6,000 fetched (docs/decisions/shared-rate-limits.md#lfs-object-transfers). */
export const DEFAULT_LFS_RATE_LIMIT_PER_MINUTE = 6000;

export interface RateLimits {
  /** REST API requests per minute per token (hashed); 0 turns the limit off. */
  perTokenPerMinute: number;
  /** REST API requests per minute per anonymous client address; 0 turns the limit off. Requests
   *  with an invalid credential count here too, so made-up tokens cannot dodge it. */
  anonymousPerMinute: number;
  /** git transport's own budgets, apart from the REST API's (absent: no limit on git transport). */
  git?: {
    /** git requests per minute per token; 0 turns the limit off. */
    perTokenPerMinute: number;
    /** git requests per minute per client address without a valid token (anonymous clones,
     *  invalid credentials); 0 turns the limit off. */
    perAddressPerMinute: number;
  };
  /** LFS object transfers' own budget (absent: not limited). */
  lfs?: {
    /** grant-bearing LFS object requests (upload, download, verify) per minute per user; 0 turns
     *  the limit off. */
    perUserPerMinute: number;
  };
}

/** Whom a request is counted against: a token that authenticated (with its user, whose git
 *  budget it spends), or the client's address (`credential`: whether the request carried one,
 *  valid or not). The address is the one the web service vouched for when it calls for a browser
 *  (client-forwarding.ts). */
export type RateClient = { token: string; userId?: string | null } | { anonymous: true; credential: boolean; address: string };

/** `lfs`: an LFS object transfer carrying its batch's grant; the batch itself is `git`. */
export type RateSurface = 'api' | 'git' | 'lfs';

/** Whether this request is a git client's credential-less first leg, answered with the 401
 *  challenge that makes it retry with its token (set by the gate, read when the answer is sent). */
const CHALLENGED = 'rateLimitChallenged';
export function markChallenged(res: Response): void {
  res.locals[CHALLENGED] = true;
}

/** Works on a bare node request and response too: the gateway answers warm reads before express
 *  runs (edge-cache/before-router.ts). */
export type RateLimitGate = (req: IncomingMessage, res: ServerResponse, client: RateClient, surface: RateSurface) => Promise<boolean>;

/** Each request's key, computed by the gate (hash or address) and read back by the limiter. */
const keys = new WeakMap<IncomingMessage, string>();

/**
 * One client cannot starve the others (docs/operating.md#rate-limits-gateway): each token, and each anonymous address,
 * gets its own budget per minute, with the IETF `RateLimit-*` headers on every answer and
 * `429 {"error":"Rate limit exceeded"}` plus `Retry-After` once it is spent. Counts live in
 * `stores`: Redis when REDIS_URL is set, so every replica spends one budget, this process's memory
 * otherwise (docs/decisions/shared-rate-limits.md). The gate runs after authentication, which is
 * what tells a token from an anonymous caller; returns false when it has answered 429. git
 * transport has budgets of its own (see `RateLimits.git`), so a CI machine cloning and pushing does
 * not eat the REST API's; a user's git budget is the one the SSH service spends too (gitBudgetKey).
 * LFS object transfers spend a third, per user (`RateLimits.lfs`).
 */
export function createRateLimitGate(limits: RateLimits, stores: LimitStores = createLimitStores({ service: 'gateway' })): RateLimitGate {
  const limiter = (perMinute: number, budget: BudgetName, identifier: string, counts?: (req: Request, res: Response) => boolean) =>
    perMinute > 0 ? limiterOn(stores, perMinute, budget, identifier, counts) : undefined;
  const budgets: Record<RateSurface, { byToken?: RequestHandler; byAddress?: RequestHandler }> = {
    api: { byToken: limiter(limits.perTokenPerMinute, BUDGETS.apiToken, 'token'), byAddress: limiter(limits.anonymousPerMinute, BUDGETS.apiAnonymous, 'anonymous') },
    // A git client sends every operation's first request without credentials and repeats it with
    // its token after the 401: those challenged first legs are given back (refunded once answered),
    // so pushing with a token never spends an address's budget, and git never spends the REST one.
    git: {
      byToken: limiter(limits.git?.perTokenPerMinute ?? 0, BUDGETS.git, 'git-token'),
      byAddress: limiter(limits.git?.perAddressPerMinute ?? 0, BUDGETS.gitAnonymous, 'git-anonymous', (_req, res) => !(res.statusCode === 401 && res.locals[CHALLENGED] === true)),
    },
    // One request per object and two per upload (PUT, verify): a push of many objects would spend
    // the git budget in seconds, so transfers have a budget of their own, per user
    // (docs/decisions/shared-rate-limits.md#lfs-object-transfers). A grant always has a principal.
    lfs: { byToken: limiter(limits.lfs?.perUserPerMinute ?? 0, BUDGETS.lfs, 'lfs') },
  };
  return async (req, res, client, surface) => {
    const { byToken, byAddress } = budgets[surface];
    const handler = 'token' in client ? byToken : byAddress;
    if (!handler) return true;
    // Tokens are counted by their hash, so the limiter never holds a usable secret; git by the
    // user behind the token, as SSH counts the user behind the key.
    keys.set(req, 'token' in client ? (surface !== 'api' ? gitBudgetKey(client.userId ? { userId: client.userId } : { token: client.token }) : tokenKey(client.token)) : `ip:${ipKeyGenerator(client.address)}`);
    let passed = false;
    let failure: unknown;
    await handler(req as Request, res as Response, (err?: unknown) => {
      if (err) failure = err;
      else passed = true;
    });
    if (failure) throw failure;
    return passed;
  };
}

function limiterOn(stores: LimitStores, perMinute: number, budget: BudgetName, identifier: string, counts?: (req: Request, res: Response) => boolean): RequestHandler {
  return rateLimit({
    ...(counts ? { skipFailedRequests: true, requestWasSuccessful: counts } : {}),
    windowMs: WINDOW_MS,
    limit: perMinute,
    identifier,
    store: stores.store(budget),
    // draft-6: separate RateLimit-Limit / -Remaining / -Reset and RateLimit-Policy headers.
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    keyGenerator: (req) => String(keys.get(req)),
    handler: (req, res) => sendRefusal(req, res, { message: 'Rate limit exceeded', details: undefined }, 429),
    // The key is computed above (hash or ipKeyGenerator); the library cannot see that.
    validate: { keyGeneratorIpFallback: false },
  }) as unknown as RequestHandler;
}
