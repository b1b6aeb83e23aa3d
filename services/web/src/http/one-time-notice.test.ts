import { describe, expect, it } from '@jest/globals';
import type { Request, Response } from 'express';
import { NOTICE_COOKIE, setOneTimeNotice, takeOneTimeNotice, type NoticeScope } from './one-time-notice.js';

/** The Set-Cookie headers an answer carries, as a browser would receive them. */
function answer(): { res: Response; cookies: () => string[] } {
  const headers = new Map<string, unknown>();
  const res = { getHeader: (n: string) => headers.get(n.toLowerCase()), setHeader: (n: string, v: unknown) => headers.set(n.toLowerCase(), v) } as unknown as Response;
  return { res, cookies: () => (headers.get('set-cookie') as string[] | undefined) ?? [] };
}
const request = (cookie: string | undefined) => ({ headers: cookie === undefined ? {} : { cookie } }) as unknown as Request;
/** The `name=value` a browser sends back for a Set-Cookie header. */
const sentBack = (setCookie: string) => setCookie.split(';')[0]!;

const scope: NoticeScope = { secret: 's'.repeat(32), csrf: 'csrf-of-session-a', page: '/-/settings/tokens', secure: false };
const SECRET = 'ghp_the-token-itself';

describe('one-time notices', () => {
  it('when a notice is set, then its page reads it once, the same answer clears the cookie, and the cookie holds no clear text', () => {
    const posted = answer();
    setOneTimeNotice(posted.res, scope, { token: SECRET });
    const [set] = posted.cookies();
    expect(set).toMatch(new RegExp(`^${NOTICE_COOKIE}=[A-Za-z0-9_-]+; Path=/-/settings/tokens; HttpOnly; SameSite=Lax; Max-Age=120$`));
    expect(set).not.toContain(SECRET);
    expect(set).not.toContain(Buffer.from(SECRET).toString('base64url').slice(0, 12));
    const view = answer();
    expect(takeOneTimeNotice(request(sentBack(set!)), view.res, scope)).toEqual({ token: SECRET });
    expect(view.cookies()).toEqual([`${NOTICE_COOKIE}=; Path=/-/settings/tokens; HttpOnly; SameSite=Lax; Max-Age=0`]);
    const reload = answer();
    expect(takeOneTimeNotice(request(sentBack(view.cookies()[0]!)), reload.res, scope)).toBeUndefined();
    expect(takeOneTimeNotice(request(undefined), answer().res, scope)).toBeUndefined();
  });

  it('when the notice is read by another session, on another page, under another secret or altered, then nothing is shown and the cookie is still cleared', () => {
    const posted = answer();
    setOneTimeNotice(posted.res, scope, { token: SECRET });
    const cookie = sentBack(posted.cookies()[0]!);
    for (const other of [{ ...scope, csrf: 'csrf-of-session-b' }, { ...scope, page: '/-/admin/users/bob' }, { ...scope, secret: 't'.repeat(32) }]) {
      const view = answer();
      expect(takeOneTimeNotice(request(cookie), view.res, other)).toBeUndefined();
      expect(view.cookies()).toHaveLength(1);
    }
    const altered = cookie.slice(0, -2) + (cookie.endsWith('AA') ? 'BB' : 'AA');
    expect(takeOneTimeNotice(request(altered), answer().res, scope)).toBeUndefined();
  });
});
