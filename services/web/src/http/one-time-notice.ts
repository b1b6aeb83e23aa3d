import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { appendCookie, cookieHeader, readCookies } from './session.js';

/** The cookie that carries a notice from a form's answer (a 303) to the page it redirects to. */
export const NOTICE_COOKIE = 'githost_notice';
/** Long enough for the redirect to be followed; a notice not read by then is dropped. */
export const NOTICE_MAX_AGE_SECONDS = 120;

/** Who may read a notice: this browser's session (its anti-CSRF token stands for it) on one page. */
export interface NoticeScope {
  /** The internal secret the key is derived from (the web keeps no state of its own). */
  secret: string;
  /** The request's anti-CSRF token: bound to the session, so another session cannot open it. */
  csrf: string;
  /** The page that shows it; the cookie is sent only there. */
  page: string;
  secure: boolean;
}

const keyOf = (secret: string) => createHmac('sha256', secret).update('githost-web-one-time-notice').digest();
const aadOf = (scope: NoticeScope) => Buffer.from(`${scope.csrf}\n${scope.page}`);

/**
 * Post/redirect/get with a notice shown once (docs/decisions/token-shown-once.md): the answer to a
 * form sets the notice, sealed (AES-256-GCM under a key derived from the internal secret, bound
 * to the session and the page), in a cookie only that page is sent; the page reads it and clears
 * it in the same answer, so a reload shows nothing. Nothing of it is in a URL, and no log line
 * holds cookies.
 */
export function setOneTimeNotice(res: Response, scope: NoticeScope, value: unknown): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(scope.secret), iv);
  cipher.setAAD(aadOf(scope));
  const body = Buffer.concat([cipher.update(JSON.stringify({ value, expires: Date.now() + NOTICE_MAX_AGE_SECONDS * 1000 }), 'utf8'), cipher.final()]);
  const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  appendCookie(res, cookieHeader(NOTICE_COOKIE, sealed, { secure: scope.secure, maxAgeSeconds: NOTICE_MAX_AGE_SECONDS, path: scope.page }));
}

/** The notice for this page, once: the cookie is cleared whenever it was sent, whatever it held. */
export function takeOneTimeNotice(req: Request, res: Response, scope: NoticeScope): unknown {
  const sealed = readCookies(req).get(NOTICE_COOKIE);
  if (sealed === undefined) return undefined;
  appendCookie(res, cookieHeader(NOTICE_COOKIE, '', { secure: scope.secure, maxAgeSeconds: 0, path: scope.page }));
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(scope.secret), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    decipher.setAAD(aadOf(scope));
    const opened = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as { value: unknown; expires: number };
    return typeof opened.expires === 'number' && opened.expires > Date.now() ? opened.value : undefined;
  } catch {
    // Another session's, another page's, expired or altered: nothing to show.
    return undefined;
  }
}

