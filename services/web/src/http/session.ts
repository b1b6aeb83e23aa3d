import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

/** The cookie that holds the session secret `POST /api/sessions` issued. */
export const SESSION_COOKIE = 'githost_session';
/** Before sign-in: a random value the sign-in form's anti-CSRF token is bound to. */
export const PRE_SESSION_COOKIE = 'githost_presession';

export interface CookieOptions {
  secure: boolean;
  maxAgeSeconds?: number;
  /** Default `/`; a narrower path sends the cookie to that page (and below it) only. */
  path?: string;
}

export function readCookies(req: Request): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    try {
      if (!out.has(name)) out.set(name, decodeURIComponent(raw));
    } catch {
      // a cookie we did not write: ignored
    }
  }
  return out;
}

/** Our cookies are `HttpOnly; SameSite=Lax; Path=/` (or the path given), and `Secure` when the site is https. */
export function cookieHeader(name: string, value: string, opts: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${opts.path ?? '/'}`, 'HttpOnly', 'SameSite=Lax'];
  if (opts.maxAgeSeconds !== undefined) parts.push(`Max-Age=${opts.maxAgeSeconds}`);
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}

export function appendCookie(res: Response, header: string): void {
  const existing = res.getHeader('Set-Cookie');
  const list = Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)];
  res.setHeader('Set-Cookie', [...list, header]);
}

/** What a form's anti-CSRF token is bound to: the session, or before sign-in the pre-session. */
export interface CsrfBinding {
  kind: 'session' | 'pre-session';
  value: string;
}

/**
 * Anti-CSRF tokens (services/web/README.md#forms): HMAC(internal secret, the session secret), so a token is
 * worth nothing with another session or after sign-out, and the web keeps no state for it.
 */
export class CsrfTokens {
  constructor(private readonly secret: string) {}

  tokenFor(binding: CsrfBinding): string {
    return createHmac('sha256', this.secret).update(`githost-web-csrf\n${binding.kind}\n${binding.value}`).digest('base64url');
  }

  verify(binding: CsrfBinding | undefined, token: unknown): boolean {
    if (!binding || typeof token !== 'string' || token.length === 0) return false;
    const expected = Buffer.from(this.tokenFor(binding));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

export function newPreSession(): string {
  return randomBytes(24).toString('base64url');
}
