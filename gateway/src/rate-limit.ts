import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';

export interface RateLimits {
  /** Requests per minute per token (hashed); 0 turns the limit off. */
  perTokenPerMinute: number;
  /** Requests per minute per anonymous client address; 0 turns the limit off. Requests with an
   *  invalid credential count here too, so made-up tokens cannot dodge it. */
  anonymousPerMinute: number;
}

/** Whom a request is counted against: a token that authenticated, or the client's address. */
export type RateClient = { token: string } | { anonymous: true };

export type RateLimitGate = (req: Request, res: Response, client: RateClient) => Promise<boolean>;

const WINDOW_MS = 60_000;
const KEY = 'rateLimitKey';

/**
 * One client cannot starve the others (issue 6 part 6): each token, and each anonymous address,
 * gets its own budget per minute, with the IETF `RateLimit-*` headers on every answer and
 * `429 {"error":"Rate limit exceeded"}` plus `Retry-After` once it is spent. Counts live in this
 * process (express-rate-limit's memory store), so with several gateway replicas the limit holds
 * per replica. The gate runs after authentication, which is what tells a token from an anonymous
 * caller; returns false when it has answered 429.
 */
export function createRateLimitGate(limits: RateLimits): RateLimitGate {
  const byToken = limiter(limits.perTokenPerMinute, 'token');
  const byAddress = limiter(limits.anonymousPerMinute, 'anonymous');
  return async (req, res, client) => {
    const handler = 'token' in client ? byToken : byAddress;
    if (!handler) return true;
    // Tokens are counted by their hash, so the limiter never holds a usable secret.
    res.locals[KEY] = 'token' in client ? `token:${createHash('sha256').update(client.token).digest('hex')}` : `ip:${ipKeyGenerator(req.ip ?? '')}`;
    let passed = false;
    let failure: unknown;
    await handler(req, res, (err?: unknown) => {
      if (err) failure = err;
      else passed = true;
    });
    if (failure) throw failure;
    return passed;
  };
}

function limiter(perMinute: number, prefix: string): RequestHandler | undefined {
  if (perMinute <= 0) return undefined;
  return rateLimit({
    windowMs: WINDOW_MS,
    limit: perMinute,
    identifier: prefix,
    // draft-6: separate RateLimit-Limit / -Remaining / -Reset and RateLimit-Policy headers.
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    keyGenerator: (_req, res) => String(res.locals[KEY]),
    handler: (_req, res) => {
      res.status(429).json({ error: 'Rate limit exceeded' });
    },
    // The key is computed above (hash or ipKeyGenerator); the library cannot see that.
    validate: { keyGeneratorIpFallback: false },
  }) as unknown as RequestHandler;
}
