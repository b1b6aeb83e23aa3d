import { apiPath } from '../clients/api.js';
import { sshFactsOf, type SshFacts } from '@githost/api-client';
import { AppError } from '@githost/errors';
import { appendCookie, cookieHeader, SESSION_COOKIE } from '../http/session.js';
import type { IssuedSession, IssuedToken, SessionInfo, SshKey, TokenInfo } from '../clients/types.js';
import { Notice, Time } from '../views/components.js';
import { attempt, CsrfField, ErrorNotice, Flash } from '../views/forms.js';
import { keyBodyOf, NewSshKeyForm, SshKeyList, type KeyFormValues } from '../views/ssh-keys.js';
import { IssuedTokenNotice, NewTokenForm, TokenList, type ShownToken, type TokenFormValues } from '../views/tokens.js';
import { issuedTokenToShow, showIssuedTokenOnce, tokenRequestOf } from './token-request.js';
import { clearSessionCookie } from './router.js';
import { safeNext, site } from './paths.js';
import { field, page, redirect, type PageContext, type PageDefinition, type PageResult } from './registry.js';

function SignInForm({ ctx, next, error, username }: { ctx: PageContext; next: string; error?: string | undefined; username?: string }) {
  return (
    <section class="narrow">
      <h1 class="page-title">Sign in to githost</h1>
      {error && <Notice kind="error">{error}</Notice>}
      <form method="post" action={site.signIn()} class="stack">
        <CsrfField token={ctx.csrf} />
        <input type="hidden" name="next" value={next} />
        <label for="username">Username</label>
        <input id="username" name="username" type="text" autocomplete="username" required value={username ?? ''} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit" class="primary">Sign in</button>
      </form>
    </section>
  );
}

async function signIn(ctx: PageContext): Promise<PageResult> {
  const username = field(ctx.form, 'username').trim();
  const password = field(ctx.form, 'password');
  const next = safeNext(field(ctx.form, 'next'));
  if (!username || !password) return page('Sign in', <SignInForm ctx={ctx} next={next} username={username} error="Enter your username and password." />, { status: 400 });
  let session: IssuedSession;
  try {
    session = await ctx.api.call('POST', apiPath('/api/sessions'), { username, password });
  } catch (err) {
    if (err instanceof AppError && (err.kind === 'unauthenticated' || err.kind === 'validation')) {
      return page('Sign in', <SignInForm ctx={ctx} next={next} username={username} error="Invalid username or password." />, { status: 401 });
    }
    if (err instanceof AppError && err.details?.status === 429) {
      return page('Sign in', <SignInForm ctx={ctx} next={next} username={username} error="Too many attempts. Wait a minute and try again." />, { status: 429 });
    }
    throw err;
  }
  const secure = ctx.config.publicUrl.startsWith('https:');
  const maxAge = Math.max(0, Math.floor((Date.parse(session.expires_at) - Date.now()) / 1000));
  appendCookie(ctx.res, cookieHeader(SESSION_COOKIE, session.secret, { secure, ...(Number.isFinite(maxAge) ? { maxAgeSeconds: maxAge } : {}) }));
  return redirect(next);
}

async function signOut(ctx: PageContext): Promise<PageResult> {
  if (ctx.viewer) {
    // The session ends on the server too, not only in this browser.
    await ctx.api.call('DELETE', apiPath('/api/user/sessions/{session_id}', { session_id: 'current' })).catch((err: unknown) => {
      if (!(err instanceof AppError && err.kind === 'unauthenticated')) throw err;
    });
  }
  clearSessionCookie(ctx.res, ctx.config.publicUrl.startsWith('https:'));
  return redirect(site.home());
}

export function SettingsNav({ current }: { current: 'password' | 'sessions' | 'tokens' | 'keys' | 'applications' }) {
  const items = [
    { id: 'password', label: 'Password', href: site.settings() },
    { id: 'sessions', label: 'Sessions', href: site.sessions() },
    { id: 'tokens', label: 'Access tokens', href: site.tokens() },
    { id: 'keys', label: 'SSH keys', href: site.keys() },
    { id: 'applications', label: 'Applications', href: site.applications() },
  ];
  return (
    <nav aria-label="Settings" class="tabs">
      {items.map((i) => (
        <a href={i.href} aria-current={i.id === current ? 'page' : undefined}>
          {i.label}
        </a>
      ))}
    </nav>
  );
}

// Messages after a redirect are chosen by key: nothing from the URL is echoed into the page.
const DONE: Record<string, string> = {
  password: 'Your password has been changed.',
  'session-revoked': 'The session has been ended.',
  'token-revoked': 'The token has been revoked.',
  'key-added': 'The SSH key has been added.',
  'key-deleted': 'The SSH key has been deleted.',
};

function passwordPage(ctx: PageContext, error?: string, status = 200): PageResult {
  return page(
    'Settings',
    <>
      <h1 class="page-title">Settings</h1>
      <SettingsNav current="password" />
      <p>
        Signed in as <strong>{ctx.viewer!.username}</strong>
        {ctx.viewer!.email && <> ({ctx.viewer!.email})</>}.
      </p>
      <Flash ctx={ctx} messages={DONE} />
      {error && <Notice kind="error">{error}</Notice>}
      <form method="post" action={`${site.settings()}/password`} class="stack narrow">
        <h2>Change password</h2>
        <CsrfField token={ctx.csrf} />
        <label for="current_password">Current password</label>
        <input id="current_password" name="current_password" type="password" autocomplete="current-password" required />
        <label for="new_password">New password</label>
        <input id="new_password" name="password" type="password" autocomplete="new-password" required />
        <label for="confirm_password">Repeat the new password</label>
        <input id="confirm_password" name="confirm" type="password" autocomplete="new-password" required />
        <button type="submit" class="primary">Change password</button>
      </form>
    </>,
    { status },
  );
}

async function changePassword(ctx: PageContext): Promise<PageResult> {
  const current = field(ctx.form, 'current_password');
  const password = field(ctx.form, 'password');
  if (password !== field(ctx.form, 'confirm')) return passwordPage(ctx, 'The new passwords do not match.', 400);
  try {
    await ctx.api.call('PUT', apiPath('/api/user/password'), { current_password: current, password });
  } catch (err) {
    if (err instanceof AppError && (err.kind === 'validation' || err.kind === 'forbidden')) return passwordPage(ctx, err.message, 400);
    throw err;
  }
  return redirect(`${site.settings()}?done=password`);
}

/** A session's browser as the sessions page names it. */
const browserOf = (s: SessionInfo) => s.user_agent || 'Unknown browser';

async function sessionsPage(ctx: PageContext): Promise<PageResult> {
  const sessions = await ctx.api.get(apiPath('/api/user/sessions'));
  return page(
    'Sessions',
    <>
      <h1 class="page-title">Settings</h1>
      <SettingsNav current="sessions" />
      <Flash ctx={ctx} messages={DONE} />
      <h2>Where you are signed in</h2>
      <ul class="item-list">
        {sessions.map((s) => (
          <li>
            <div>
              <strong>{browserOf(s)}</strong> {s.current && <span class="badge">this browser</span>}
              <p class="muted">
                {s.address && <>{s.address} · </>}
                {s.created_at && <>signed in <Time iso={s.created_at} /></>}
                {s.last_used_at && <> · last used <Time iso={s.last_used_at} /></>}
              </p>
            </div>
            {!s.current && (
              <form method="post" action={`${site.sessions()}/${encodeURIComponent(s.id)}/revoke`} class="inline">
                <CsrfField token={ctx.csrf} />
                {/* Named for the session it ends, not "Sign out" like the header's button. */}
                <button type="submit" class="danger">
                  End the session<span class="visually-hidden"> on {browserOf(s)}</span>
                </button>
              </form>
            )}
          </li>
        ))}
      </ul>
    </>,
  );
}

async function revokeSession(ctx: PageContext, id: string): Promise<PageResult> {
  await ctx.api.call('DELETE', apiPath('/api/user/sessions/{session_id}', { session_id: id }));
  return redirect(`${site.sessions()}?done=session-revoked`);
}

function tokensView(ctx: PageContext, tokens: TokenInfo[], opts: { issued?: ShownToken | undefined; error?: string; values?: TokenFormValues; status?: number } = {}): PageResult {
  return page(
    'Access tokens',
    <>
      <h1 class="page-title">Settings</h1>
      <SettingsNav current="tokens" />
      <Flash ctx={ctx} messages={DONE} />
      {opts.issued && <IssuedTokenNotice issued={opts.issued} />}
      <h2>Personal access tokens</h2>
      <TokenList ctx={ctx} tokens={tokens} revokeAction={(id) => `${site.tokens()}/${encodeURIComponent(id)}/revoke`} empty="You have no tokens." />
      <NewTokenForm ctx={ctx} action={site.tokens()} offerAdmin={ctx.viewer?.is_admin === true} error={opts.error} values={opts.values} />
    </>,
    { status: opts.status ?? 200 },
  );
}

async function tokensPage(ctx: PageContext): Promise<PageResult> {
  return tokensView(ctx, await ctx.api.get(apiPath('/api/user/tokens')), { issued: issuedTokenToShow(ctx, site.tokens()) });
}

async function createToken(ctx: PageContext): Promise<PageResult> {
  const list = () => ctx.api.get(apiPath('/api/user/tokens'));
  const request = tokenRequestOf(ctx.form);
  if ('error' in request) return tokensView(ctx, await list(), { error: request.error, values: request.values, status: 400 });
  let issued: IssuedToken;
  try {
    issued = await ctx.api.call('POST', apiPath('/api/user/tokens'), request.body);
  } catch (err) {
    if (err instanceof AppError && err.kind === 'validation') return tokensView(ctx, await list(), { error: err.message, values: request.values, status: 400 });
    throw err;
  }
  return showIssuedTokenOnce(ctx, site.tokens(), issued);
}

async function revokeToken(ctx: PageContext, id: string): Promise<PageResult> {
  await ctx.api.call('DELETE', apiPath('/api/user/tokens/{token_id}', { token_id: id }));
  return redirect(`${site.tokens()}?done=token-revoked`);
}

function keysView(ctx: PageContext, keys: SshKey[], facts: SshFacts | null, opts: { error?: string; values?: KeyFormValues; status?: number } = {}): PageResult {
  return page(
    'SSH keys',
    <>
      <h1 class="page-title">Settings</h1>
      <SettingsNav current="keys" />
      <Flash ctx={ctx} messages={DONE} />
      <ErrorNotice error={opts.error} />
      <h2>SSH keys</h2>
      <SshKeyList ctx={ctx} keys={keys} deleteAction={(id) => `${site.keys()}/${id}/delete`} empty="You have no SSH keys." />
      <NewSshKeyForm ctx={ctx} action={site.keys()} heading="Add an SSH key" deployKey={false} values={opts.values} />
      {facts && <HostKeys facts={facts} />}
    </>,
    { status: opts.status ?? 200 },
  );
}

/** The server's host keys, so users can check what `ssh` shows on first contact (README.md#ssh). */
function HostKeys({ facts }: { facts: SshFacts }) {
  return (
    <section aria-labelledby="host-keys-title">
      <h2 id="host-keys-title">This server's SSH host keys</h2>
      <p>On first contact, ssh shows one of these fingerprints (port {facts.port}); continue only if it matches.</p>
      <ul class="host-keys">
        {facts.hostKeys.map((k) => (
          <li>
            <code>{k.type}</code> <code>{k.fingerprint}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

const ownKeys = (ctx: PageContext) => ctx.api.get(apiPath('/api/user/keys'));

async function addKey(ctx: PageContext): Promise<PageResult> {
  const values = { title: field(ctx.form, 'title'), key: field(ctx.form, 'key'), write: false };
  const result = await attempt(
    () => ctx.api.call('POST', apiPath('/api/user/keys'), keyBodyOf(values, false)),
    async (message, status) => keysView(ctx, await ownKeys(ctx), await sshFactsOf(ctx.config.sshHttpUrl), { error: message, values, status }),
  );
  return result.ok ? redirect(`${site.keys()}?done=key-added`) : result.result;
}

async function deleteKey(ctx: PageContext, id: string): Promise<PageResult> {
  await ctx.api.call('DELETE', apiPath('/api/user/keys/{key_id}', { key_id: id }));
  return redirect(`${site.keys()}?done=key-deleted`);
}

export const accountPages: PageDefinition[] = [
  {
    method: 'GET',
    path: '/-/sign-in',
    readsViewerFirst: true,
    handle: async (ctx) => (ctx.viewer ? redirect(safeNext(ctx.req.query.next), 302) : page('Sign in', <SignInForm ctx={ctx} next={safeNext(ctx.req.query.next)} />)),
  },
  { method: 'POST', path: '/-/sign-in', handle: signIn },
  { method: 'POST', path: '/-/sign-out', handle: signOut },
  { method: 'GET', path: '/-/settings', signedIn: true, handle: async (ctx) => passwordPage(ctx) },
  { method: 'POST', path: '/-/settings/password', signedIn: true, handle: changePassword },
  { method: 'GET', path: '/-/settings/sessions', signedIn: true, handle: sessionsPage },
  { method: 'POST', path: '/-/settings/sessions/:id/revoke', signedIn: true, handle: (ctx, p) => revokeSession(ctx, p.id!) },
  { method: 'GET', path: '/-/settings/tokens', signedIn: true, handle: tokensPage },
  { method: 'POST', path: '/-/settings/tokens', signedIn: true, handle: createToken },
  { method: 'POST', path: '/-/settings/tokens/:id/revoke', signedIn: true, handle: (ctx, p) => revokeToken(ctx, p.id!) },
  { method: 'GET', path: '/-/settings/keys', signedIn: true, handle: async (ctx) => keysView(ctx, await ownKeys(ctx), await sshFactsOf(ctx.config.sshHttpUrl)) },
  { method: 'POST', path: '/-/settings/keys', signedIn: true, handle: addKey },
  { method: 'POST', path: '/-/settings/keys/:id/delete', signedIn: true, handle: (ctx, p) => deleteKey(ctx, p.id!) },
];
