import type { IssuedToken, TokenScope } from '../clients/types.js';
import { setOneTimeNotice, takeOneTimeNotice, type NoticeScope } from '../http/one-time-notice.js';
import { TOKEN_EXPIRY_DAYS, type ShownToken, type TokenFormValues } from '../views/tokens.js';
import { field, fields, redirect, type PageContext, type PageResult } from './registry.js';

/** The token form as the body of `POST .../tokens` (openapi TokenRequest), or what is wrong
 *  with it; the same for one's own tokens and a site admin's for a user. */
export function tokenRequestOf(form: PageContext['form'], now = Date.now()): { values: TokenFormValues } & ({ body: Record<string, unknown> } | { error: string }) {
  const values: TokenFormValues = {
    name: field(form, 'name').trim(),
    scopes: fields(form, 'scopes').filter((s): s is TokenScope => s === 'read' || s === 'write' || s === 'admin'),
    expiresInDays: field(form, 'expires_in_days'),
  };
  if (!values.name) return { values, error: 'Give the token a name.' };
  if (values.scopes.length === 0) return { values, error: 'Choose at least one scope.' };
  if (!(TOKEN_EXPIRY_DAYS as readonly string[]).includes(values.expiresInDays)) return { values, error: 'Choose when the token expires.' };
  const body: Record<string, unknown> = { name: values.name, scopes: values.scopes };
  if (values.expiresInDays !== 'never') body.expires_at = new Date(now + Number(values.expiresInDays) * 86_400_000).toISOString();
  return { values, body };
}

const noticeScope = (ctx: PageContext, page: string): NoticeScope => ({ secret: ctx.config.internalSecret, csrf: ctx.csrf, page, secure: ctx.config.publicUrl.startsWith('https:') });

/**
 * After a token is issued: post/redirect/get to the page that lists the tokens, which shows the
 * secret once (docs/decisions/token-shown-once.md). A reload of that page issues nothing and
 * shows nothing; the secret is never in a URL.
 */
export function showIssuedTokenOnce(ctx: PageContext, page: string, issued: IssuedToken): PageResult {
  const shown: ShownToken = { name: issued.name ?? null, token: issued.token };
  setOneTimeNotice(ctx.res, noticeScope(ctx, page), shown);
  return redirect(page);
}

/** The token issued just before this view of `page`, if this is that view. */
export function issuedTokenToShow(ctx: PageContext, page: string): ShownToken | undefined {
  const v = takeOneTimeNotice(ctx.req, ctx.res, noticeScope(ctx, page)) as Partial<ShownToken> | undefined;
  return v && typeof v.token === 'string' && (typeof v.name === 'string' || v.name === null) ? { name: v.name, token: v.token } : undefined;
}
