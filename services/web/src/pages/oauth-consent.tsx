import { AppError } from '@githost/errors';
import { apiPath } from '../clients/api.js';
import { CONTENT_SECURITY_POLICY } from '../http/security-headers.js';
import { CsrfField } from '../views/forms.js';
import { field, page, redirect, type PageContext, type PageDefinition, type PageResult } from './registry.js';

/**
 * The OAuth2 consent page (docs/decisions/oauth2-provider.md#consent): the provider sends the
 * browser here with its interaction id; the signed-in person sees which application asks for
 * what and approves or denies, and the answer sends the browser back to the provider, which
 * redirects to the application.
 */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  openid: 'Know who you are on this site',
  profile: 'Read your username and profile address',
  email: 'Read your email address',
  offline_access: 'Keep access while you are away (a refresh token)',
  read: 'Read the repositories you can read: clone, fetch, browse',
  'read:repository': 'Read the repositories you can read: clone, fetch, browse',
  write: 'Read and write the repositories you can write: push, merge requests, comments',
  'write:repository': 'Read and write the repositories you can write: push, merge requests, comments',
};

/** The form posts here, and the provider then redirects to the application: the page's
 *  form-action must allow the redirect URI's origin too, or the browser stops at the redirect. */
function policyAllowing(redirectUri: string): string {
  let source = '';
  try {
    const url = new URL(redirectUri);
    source = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  } catch {
    return CONTENT_SECURITY_POLICY;
  }
  return CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${source}`);
}

const consentPath = (uid: string) => `/-/oauth/authorize/${encodeURIComponent(uid)}`;

async function consentPage(ctx: PageContext, uid: string): Promise<PageResult> {
  const request = await ctx.api.get(apiPath('/api/user/oauth2/authorizations/{uid}', { uid }));
  // Granted before with these scopes or more, and not revoked: the person signed in here answered
  // already, so the browser goes on at once, as on Gitea and GitHub (docs/decisions/oauth2-provider.md#consent).
  if (request.remembered) return answerWith(ctx, uid, true);
  ctx.res.setHeader('Content-Security-Policy', policyAllowing(request.redirect_uri));
  const host = (() => {
    try {
      return new URL(request.redirect_uri).host || request.redirect_uri;
    } catch {
      return request.redirect_uri;
    }
  })();
  return page(
    `Authorize ${request.client.name}`,
    <section class="narrow">
      <h1 class="page-title">
        Authorize <strong>{request.client.name}</strong>
      </h1>
      <p>
        The application <strong>{request.client.name}</strong> asks to use your account <strong>{ctx.viewer!.username}</strong>. It will be allowed to:
      </p>
      <ul class="item-list" aria-label="What the application asks for">
        {request.scopes.map((s) => (
          <li>
            <div>
              <strong>{SCOPE_DESCRIPTIONS[s] ?? s}</strong> <span class="muted">({s})</span>
            </div>
          </li>
        ))}
      </ul>
      <p class="muted">After you answer you will be sent to {host}.</p>
      <form method="post" action={consentPath(uid)} class="stack">
        <CsrfField token={ctx.csrf} />
        <div>
          <button type="submit" name="answer" value="approve" class="primary">
            Approve
          </button>{' '}
          <button type="submit" name="answer" value="deny">
            Deny
          </button>
        </div>
      </form>
    </section>,
  );
}

function answer(ctx: PageContext, uid: string): Promise<PageResult> {
  return answerWith(ctx, uid, field(ctx.form, 'answer') === 'approve');
}

async function answerWith(ctx: PageContext, uid: string, approve: boolean): Promise<PageResult> {
  try {
    const { redirect_to } = await ctx.api.call('POST', apiPath('/api/user/oauth2/authorizations/{uid}', { uid }), { approve });
    return redirect(redirect_to);
  } catch (err) {
    // Answered already or expired: nothing to send the browser back to.
    if (err instanceof AppError && err.kind === 'not_found') return page('Authorization request expired', <p>This authorization request has expired or was answered already. Start the sign-in from the application again.</p>, { status: 404 });
    throw err;
  }
}

export const oauthConsentPages: PageDefinition[] = [
  { method: 'GET', path: '/-/oauth/authorize/:uid', signedIn: true, handle: (ctx, p) => consentPage(ctx, p.uid!) },
  { method: 'POST', path: '/-/oauth/authorize/:uid', signedIn: true, handle: (ctx, p) => answer(ctx, p.uid!) },
];
