import { apiPath } from '../clients/api.js';
import { AppError } from '@githost/errors';
import type { AdminUser } from '../clients/mr-types.js';
import { Time } from '../views/components.js';
import { attempt, CsrfField, ErrorNotice, Flash, PostButton } from '../views/forms.js';
import { IssuedTokenNotice, NewTokenForm, TokenList, type ShownToken, type TokenFormValues } from '../views/tokens.js';
import { adminPages } from './paths.js';
import { issuedTokenToShow, showIssuedTokenOnce, tokenRequestOf } from './token-request.js';
import { field, page, redirect, type PageContext, type PageDefinition, type PageResult } from './registry.js';

/** Site administration is for site admins only; anyone else gets the 404 page (the API says
 *  403, and the web never tells that a page exists to someone it refuses). */
function requireAdmin(ctx: PageContext): void {
  if (!ctx.viewer?.is_admin) throw new AppError('not_found', 'Not found');
}

/** The API's 403 (e.g. a token without the admin scope) as the same 404. */
function hidden(err: unknown): never {
  if (err instanceof AppError && err.kind === 'forbidden') throw new AppError('not_found', 'Not found');
  throw err;
}

const DONE: Record<string, string> = {
  created: 'The user has been created.',
  password: 'The password has been set; the user has been signed out everywhere.',
  suspended: 'The user has been suspended.',
  unsuspended: 'The user can sign in again.',
  'token-revoked': 'The token has been revoked.',
};

interface ViewOpts {
  error?: string;
  status?: number;
  values?: Record<string, string>;
  /** A refusal of the token form, shown in that form with what was sent. */
  token?: { error: string; values: TokenFormValues };
  issued?: ShownToken | undefined;
}

async function usersPage(ctx: PageContext, opts: ViewOpts = {}): Promise<PageResult> {
  requireAdmin(ctx);
  const users = await ctx.api.get(apiPath('/api/admin/users', {}, '?per_page=100')).catch(hidden);
  return page(
    'Users · Site admin',
    <>
      <h1 class="page-title">Site admin: users</h1>
      <Flash ctx={ctx} messages={DONE} />
      <table class="admin-users">
        <caption class="visually-hidden">Users</caption>
        <thead>
          <tr>
            <th scope="col">Username</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr>
              <td>
                <a href={adminPages.user(u.username)}>{u.username}</a>
              </td>
              <td>{u.email}</td>
              <td>
                {u.is_admin ? 'admin' : 'user'}
                {u.suspended && <span class="badge">suspended</span>}
              </td>
              <td>
                <Time iso={u.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="post" action={adminPages.users()} class="stack narrow">
        <h2>Create a user</h2>
        <ErrorNotice error={opts.error} />
        <CsrfField token={ctx.csrf} />
        <label for="new-username">Username</label>
        <input id="new-username" name="username" type="text" required value={opts.values?.username ?? ''} />
        <label for="new-email">Email</label>
        <input id="new-email" name="email" type="email" required value={opts.values?.email ?? ''} />
        <label for="new-password">Password (8 characters or more; optional, can be set later)</label>
        <input id="new-password" name="password" type="password" autocomplete="new-password" />
        <label class="check">
          <input type="checkbox" name="is_admin" value="1" /> Site admin
        </label>
        <button type="submit" class="primary">
          Create user
        </button>
      </form>
    </>,
    opts.status ? { status: opts.status } : {},
  );
}

async function createUser(ctx: PageContext): Promise<PageResult> {
  requireAdmin(ctx);
  const values = { username: field(ctx.form, 'username').trim(), email: field(ctx.form, 'email').trim() };
  const password = field(ctx.form, 'password');
  const body: Record<string, unknown> = { ...values, is_admin: field(ctx.form, 'is_admin') === '1' };
  if (password) body.password = password;
  const result = await attempt(
    () => ctx.api.call('POST', apiPath('/api/admin/users'), body).catch(hidden),
    (message, status) => usersPage(ctx, { error: message, status, values }),
  );
  if (!result.ok) return result.result;
  return redirect(`${adminPages.user(result.value.username)}?done=created`);
}

/** One user from the paged list (by username), page by page until found. */
async function findUser(ctx: PageContext, username: string): Promise<AdminUser> {
  for (let pageNo = 1; pageNo <= 1000; pageNo++) {
    const users = await ctx.api.get(apiPath('/api/admin/users', {}, `?per_page=100&page=${pageNo}`)).catch(hidden);
    const user = users.find((u) => u.username === username);
    if (user) return user;
    if (users.length < 100) break;
  }
  throw new AppError('not_found', 'Not found');
}

async function userPage(ctx: PageContext, username: string, opts: ViewOpts = {}): Promise<PageResult> {
  requireAdmin(ctx);
  // No single-user read: the list (by username) holds them; a user not in it is a 404.
  const [user, tokens] = await Promise.all([findUser(ctx, username), ctx.api.get(apiPath('/api/admin/users/{username}/tokens', { username })).catch(hidden)]);
  const here = adminPages.user(username);
  return page(
    `${username} · Site admin`,
    <>
      <p>
        <a href={adminPages.users()}>All users</a>
      </p>
      <h1 class="page-title">{user.username}</h1>
      <p>
        {user.email} · {user.is_admin ? 'site admin' : 'user'} · created <Time iso={user.created_at} />
        {user.suspended && (
          <>
            {' '}
            · <span class="badge">suspended</span>
            {user.suspended_at && (
              <>
                {' '}
                since <Time iso={user.suspended_at} />
              </>
            )}
          </>
        )}
      </p>
      <Flash ctx={ctx} messages={DONE} />
      <ErrorNotice error={opts.error} />
      <form method="post" action={`${here}/password`} class="stack narrow">
        <h2>Set password</h2>
        <CsrfField token={ctx.csrf} />
        <label for="set-password">New password</label>
        <input id="set-password" name="password" type="password" autocomplete="new-password" required />
        <button type="submit" class="primary">
          Set password
        </button>
      </form>
      <h2>Suspension</h2>
      <p>{user.suspended ? 'The user cannot sign in, and their tokens answer 401.' : 'A suspended user cannot sign in, and their tokens stop working.'}</p>
      <PostButton ctx={ctx} action={`${here}/suspend`} fields={{ suspended: user.suspended ? 'false' : 'true' }} label={user.suspended ? 'Unsuspend' : 'Suspend'} kind={user.suspended ? undefined : 'danger'} />
      <h2>Tokens</h2>
      {opts.issued && <IssuedTokenNotice issued={opts.issued} owner={user.username} />}
      <TokenList ctx={ctx} tokens={tokens} revokeAction={(id) => `${here}/tokens/${encodeURIComponent(id)}/revoke`} empty="No tokens." />
      {/* The API grants the admin scope only to a site admin's token (openapi TokenRequest). */}
      <NewTokenForm ctx={ctx} action={`${here}/tokens`} offerAdmin={user.is_admin} error={opts.token?.error} values={opts.token?.values} />
    </>,
    opts.status ? { status: opts.status } : {},
  );
}

async function userChange(ctx: PageContext, username: string, run: () => Promise<unknown>, done: string): Promise<PageResult> {
  requireAdmin(ctx);
  const result = await attempt(
    () => run().catch(hidden),
    (message, status) => userPage(ctx, username, { error: message, status }),
  );
  if (!result.ok) return result.result;
  return redirect(`${adminPages.user(username)}?done=${done}`);
}

/** `POST /api/admin/users/{username}/tokens`: the secret is in the API's answer only (docs/contract.md §8),
 *  shown once on the user's page after the redirect. */
async function issueToken(ctx: PageContext, username: string): Promise<PageResult> {
  requireAdmin(ctx);
  const request = tokenRequestOf(ctx.form);
  if ('error' in request) return userPage(ctx, username, { token: { error: request.error, values: request.values }, status: 400 });
  const result = await attempt(
    () => ctx.api.call('POST', apiPath('/api/admin/users/{username}/tokens', { username }), request.body).catch(hidden),
    (error, status) => userPage(ctx, username, { token: { error, values: request.values }, status }),
  );
  if (!result.ok) return result.result;
  return showIssuedTokenOnce(ctx, adminPages.user(username), result.value);
}

const U = '/-/admin/users/:username';
export const adminSitePages: PageDefinition[] = [
  { method: 'GET', path: '/-/admin', signedIn: true, handle: async (ctx) => (requireAdmin(ctx), redirect(adminPages.users(), 302)) },
  { method: 'GET', path: '/-/admin/users', signedIn: true, handle: (ctx) => usersPage(ctx) },
  { method: 'POST', path: '/-/admin/users', signedIn: true, handle: createUser },
  { method: 'GET', path: U, signedIn: true, handle: (ctx, p) => userPage(ctx, p.username!, { issued: issuedTokenToShow(ctx, adminPages.user(p.username!)) }) },
  {
    method: 'POST',
    path: `${U}/password`,
    signedIn: true,
    handle: (ctx, p) => userChange(ctx, p.username!, () => ctx.api.call('PUT', apiPath('/api/admin/users/{username}/password', { username: p.username! }), { password: field(ctx.form, 'password') }), 'password'),
  },
  {
    method: 'POST',
    path: `${U}/suspend`,
    signedIn: true,
    handle: (ctx, p) => {
      const suspended = field(ctx.form, 'suspended') === 'true';
      return userChange(ctx, p.username!, () => ctx.api.call('PATCH', apiPath('/api/admin/users/{username}', { username: p.username! }), { suspended }), suspended ? 'suspended' : 'unsuspended');
    },
  },
  { method: 'POST', path: `${U}/tokens`, signedIn: true, handle: (ctx, p) => issueToken(ctx, p.username!) },
  // The address the token form posts to, opened as a page: the user's page.
  { method: 'GET', path: `${U}/tokens`, signedIn: true, handle: async (ctx, p) => (requireAdmin(ctx), redirect(adminPages.user(p.username!), 302)) },
  {
    method: 'POST',
    path: `${U}/tokens/:id/revoke`,
    signedIn: true,
    handle: (ctx, p) => userChange(ctx, p.username!, () => ctx.api.call('DELETE', apiPath('/api/admin/users/{username}/tokens/{token_id}', { username: p.username!, token_id: p.id! })), 'token-revoked'),
  },
];
