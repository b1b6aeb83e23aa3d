import { apiPath, type ApiAnswer } from '../clients/api.js';
import { setOneTimeNotice, takeOneTimeNotice, type NoticeScope } from '../http/one-time-notice.js';
import { Time } from '../views/components.js';
import { attempt, CsrfField, ErrorNotice, Flash, PostButton } from '../views/forms.js';
import { SettingsNav } from './account.js';
import { site } from './paths.js';
import { field, page, redirect, type PageContext, type PageDefinition, type PageResult } from './registry.js';

/**
 * Settings → Applications (docs/decisions/oauth2-provider.md#applications): the OAuth2
 * applications the person registered (create, list, delete; a new one's secret shown once, after
 * the redirect, as the tokens page shows a token: docs/decisions/token-shown-once.md) and the
 * applications they authorised, each with Revoke.
 */
type Application = ApiAnswer<'/api/v1/user/applications/oauth2'>[number];
type Authorized = ApiAnswer<'/api/user/oauth2/grants'>[number];
interface ShownCredentials {
  name: string;
  client_id: string;
  client_secret: string;
}
interface FormValues {
  name: string;
  redirect_uris: string;
  confidential: boolean;
}

const DONE: Record<string, string> = {
  'application-deleted': 'The application has been deleted; its tokens no longer work.',
  'authorization-revoked': 'The application can no longer use your account.',
};

const noticeScope = (ctx: PageContext): NoticeScope => ({ secret: ctx.config.internalSecret, csrf: ctx.csrf, page: site.applications(), secure: ctx.config.publicUrl.startsWith('https:') });

function CredentialsNotice({ shown }: { shown: ShownCredentials }) {
  return (
    <div class="notice notice-info" role="status">
      <p>
        Your new application <strong>{shown.name}</strong>.{shown.client_secret && ' Copy its secret now: it will not be shown again.'}
      </p>
      <p class="clone-box">
        <label for="new-client-id">Client ID</label>
        <input id="new-client-id" type="text" readonly value={shown.client_id} data-copy="" />
      </p>
      {shown.client_secret && (
        <p class="clone-box">
          <label for="new-client-secret">Client secret</label>
          <input id="new-client-secret" type="text" readonly value={shown.client_secret} data-copy="" />
        </p>
      )}
    </div>
  );
}

function view(ctx: PageContext, apps: Application[], authorized: Authorized[], opts: { shown?: ShownCredentials | undefined; error?: string; values?: FormValues; status?: number } = {}): PageResult {
  const values = opts.values ?? { name: '', redirect_uris: '', confidential: true };
  return page(
    'Applications',
    <>
      <h1 class="page-title">Settings</h1>
      <SettingsNav current="applications" />
      <Flash ctx={ctx} messages={DONE} />
      {opts.shown && <CredentialsNotice shown={opts.shown} />}
      <h2>Authorized applications</h2>
      {authorized.length === 0 ? (
        <p>You have not authorized any application.</p>
      ) : (
        <ul class="item-list">
          {authorized.map((a) => (
            <li>
              <div>
                <strong>{a.name}</strong> <span class="muted">{a.scopes.join(', ')}</span>
                <p class="muted">
                  authorized <Time iso={a.granted_at} />
                </p>
              </div>
              <PostButton ctx={ctx} action={`${site.applications()}/authorized/${encodeURIComponent(a.client_id)}/revoke`} label={`Revoke ${a.name}`} kind="danger" />
            </li>
          ))}
        </ul>
      )}
      <h2>Your OAuth2 applications</h2>
      {apps.length === 0 ? (
        <p>You have no applications.</p>
      ) : (
        <ul class="item-list">
          {apps.map((a) => (
            <li>
              <div>
                <strong>{a.name}</strong> <span class="muted">{a.confidential_client ? 'confidential' : 'public'}</span>
                <p class="muted">
                  client ID <code>{a.client_id}</code> · {a.redirect_uris.join(', ')} · created <Time iso={a.created} />
                </p>
              </div>
              <PostButton ctx={ctx} action={`${site.applications()}/${a.id}/delete`} label={`Delete ${a.name}`} kind="danger" />
            </li>
          ))}
        </ul>
      )}
      <form method="post" action={site.applications()} class="stack narrow">
        <h2>New OAuth2 application</h2>
        <ErrorNotice error={opts.error} />
        <CsrfField token={ctx.csrf} />
        <label for="app-name">Name</label>
        <input id="app-name" name="name" type="text" maxLength={255} required value={values.name} />
        <label for="app-redirect-uris">Redirect URIs (one per line)</label>
        <textarea id="app-redirect-uris" name="redirect_uris" rows={3} required>
          {values.redirect_uris}
        </textarea>
        <label class="check">
          <input type="checkbox" name="confidential" value="1" checked={values.confidential} /> Confidential client (it can keep a secret; public clients must use PKCE)
        </label>
        <button type="submit" class="primary">
          Create application
        </button>
      </form>
    </>,
    { status: opts.status ?? 200 },
  );
}

const lists = (ctx: PageContext) => Promise.all([ctx.api.get(apiPath('/api/v1/user/applications/oauth2')), ctx.api.get(apiPath('/api/user/oauth2/grants'))]);

async function applicationsPage(ctx: PageContext): Promise<PageResult> {
  const v = takeOneTimeNotice(ctx.req, ctx.res, noticeScope(ctx)) as Partial<ShownCredentials> | undefined;
  const shown = v && typeof v.client_id === 'string' && typeof v.client_secret === 'string' && typeof v.name === 'string' ? (v as ShownCredentials) : undefined;
  const [apps, authorized] = await lists(ctx);
  return view(ctx, apps, authorized, { shown });
}

async function createApplication(ctx: PageContext): Promise<PageResult> {
  const values: FormValues = { name: field(ctx.form, 'name').trim(), redirect_uris: field(ctx.form, 'redirect_uris'), confidential: field(ctx.form, 'confidential') === '1' };
  const uris = values.redirect_uris.split(/\r?\n/).map((s) => s.trim()).filter(Boolean);
  const refused = async (error: string, status: number) => {
    const [apps, authorized] = await lists(ctx);
    return view(ctx, apps, authorized, { error, values, status });
  };
  if (!values.name) return refused('Give the application a name.', 400);
  if (uris.length === 0) return refused('Give at least one redirect URI.', 400);
  const result = await attempt(() => ctx.api.call('POST', apiPath('/api/v1/user/applications/oauth2'), { name: values.name, redirect_uris: uris, confidential_client: values.confidential }), refused);
  if (!result.ok) return result.result;
  const made = result.value;
  setOneTimeNotice(ctx.res, noticeScope(ctx), { name: made.name, client_id: made.client_id, client_secret: made.client_secret } satisfies ShownCredentials);
  return redirect(site.applications());
}

async function deleteApplication(ctx: PageContext, id: string): Promise<PageResult> {
  await ctx.api.call('DELETE', apiPath('/api/v1/user/applications/oauth2/{application_id}', { application_id: id }));
  return redirect(`${site.applications()}?done=application-deleted`);
}

async function revokeAuthorization(ctx: PageContext, clientId: string): Promise<PageResult> {
  await ctx.api.call('DELETE', apiPath('/api/user/oauth2/grants/{client_id}', { client_id: clientId }));
  return redirect(`${site.applications()}?done=authorization-revoked`);
}

export const oauthApplicationPages: PageDefinition[] = [
  { method: 'GET', path: '/-/settings/applications', signedIn: true, handle: applicationsPage },
  { method: 'POST', path: '/-/settings/applications', signedIn: true, handle: createApplication },
  { method: 'POST', path: '/-/settings/applications/:id/delete', signedIn: true, handle: (ctx, p) => deleteApplication(ctx, p.id!) },
  { method: 'POST', path: '/-/settings/applications/authorized/:client_id/revoke', signedIn: true, handle: (ctx, p) => revokeAuthorization(ctx, p.client_id!) },
];
