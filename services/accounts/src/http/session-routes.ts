import type { Express, Request, Response } from 'express';
import { AppError, notFound } from '@githost/errors';
import { route } from '@githost/http';
import type { SessionRecord } from '../domain/ports.js';
import type { AccountsDeps } from '../domain/deps.js';
import { changeOwnPassword, isThrottled, listOwnSessions, revokeCurrentSession, revokeOwnSession, setUserPassword, signIn, type Throttled } from '../domain/sessions.js';
import { callerOf, clientOf, sessionIdOf } from './caller.js';

// No capturing groups: the router would percent-decode them and answer a bad escape with a 500.
const USER_PASSWORD = /^\/api\/admin\/users\/[^/]+\/password$/;
const SESSION = /^\/api\/user\/sessions\/[^/]+$/;

function segment(req: Request, index: number, notFoundMessage: string): string {
  try {
    return decodeURIComponent(req.path.split('/')[index] ?? '');
  } catch {
    throw notFound(notFoundMessage);
  }
}

/** 429 with how long to wait (services/accounts/README.md#sessions: sign-in limits). */
function tooManyFailures(res: Response, throttled: Throttled): void {
  res.setHeader('Retry-After', String(throttled.retryAfterSeconds));
  res.status(429).json({ error: 'Too many failed sign-in attempts; try again later' });
}

export const sessionJson = (s: SessionRecord, currentId: string | undefined) => ({
  id: s.id,
  created_at: s.created_at,
  last_used_at: s.last_used_at,
  expires_at: s.expires_at,
  idle_expires_at: s.idle_expires_at,
  user_agent: s.user_agent,
  address: s.address,
  current: s.id === currentId,
});

export type SignInObserver = (result: 'signed_in' | 'refused' | 'throttled') => void;

/** services/accounts/README.md#sessions: sign-in, the caller's sessions, and passwords. */
export function registerSessionRoutes(app: Express, deps: AccountsDeps, onSignIn: SignInObserver = () => undefined): void {
  app.post('/api/sessions', route(async (req, res) => {
    const result = await signIn(deps, req.body, clientOf(res)).catch((err: unknown) => {
      if (err instanceof AppError && err.kind === 'unauthenticated') onSignIn('refused');
      throw err;
    });
    onSignIn(isThrottled(result) ? 'throttled' : 'signed_in');
    if (isThrottled(result)) return tooManyFailures(res, result);
    res.status(201).json({ id: result.id, secret: result.secret, expires_at: result.expires_at, idle_expires_at: result.idle_expires_at });
  }));

  app.get('/api/user/sessions', route(async (_req, res) => {
    const current = sessionIdOf(res);
    res.json((await listOwnSessions(deps, callerOf(res))).map((s) => sessionJson(s, current)));
  }));

  app.delete('/api/user/sessions/current', route(async (_req, res) => {
    await revokeCurrentSession(deps, callerOf(res), sessionIdOf(res));
    res.status(204).end();
  }));

  app.delete(SESSION, route(async (req, res) => {
    const caller = callerOf(res);
    await revokeOwnSession(deps, caller, segment(req, 4, 'Session not found'));
    res.status(204).end();
  }));

  app.put('/api/user/password', route(async (req, res) => {
    const throttled = await changeOwnPassword(deps, callerOf(res), sessionIdOf(res), req.body, clientOf(res));
    if (throttled) return tooManyFailures(res, throttled);
    res.status(204).end();
  }));

  app.put(USER_PASSWORD, route(async (req, res) => {
    await setUserPassword(deps, callerOf(res), segment(req, 4, 'User not found'), req.body);
    res.status(204).end();
  }));
}
