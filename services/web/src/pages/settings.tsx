import type { ComponentChildren } from 'preact';
import { AppError } from '@githost/errors';
import { repoApiPath } from '../clients/api.js';
import type { Branches, Repository } from '../clients/types.js';
import type { BranchProtection, Collaborator, Delivery, DeliveryDetail, Webhook } from '../clients/mr-types.js';
import { Time } from '../views/components.js';
import { attempt, CsrfField, ErrorNotice, Flash, PostButton } from '../views/forms.js';
import { mrPages } from './mr-paths.js';
import { field, fields, page, redirect, type PageContext, type PageDefinition, type PageResult } from './registry.js';

type Section = 'general' | 'collaborators' | 'branches' | 'webhooks';

/**
 * Repository settings are the owner's (and a site admin's), as the API's PATCH is: anyone else,
 * readers included, gets the same 404 page as for a repository that does not exist (GitHub).
 */
async function ownedRepo(ctx: PageContext, owner: string, name: string): Promise<Repository> {
  const repo = await ctx.api.get<Repository>(repoApiPath(owner, name));
  if (!ctx.viewer || (ctx.viewer.username !== repo.owner && !ctx.viewer.is_admin)) throw new AppError('not_found', 'Not found');
  return repo;
}

const DONE: Record<string, string> = {
  saved: 'The settings have been saved.',
  'collaborator-added': 'The collaborator has been added.',
  'collaborator-removed': 'The collaborator has been removed.',
  'protection-saved': 'The protection rule has been saved.',
  'protection-deleted': 'The protection rule has been deleted.',
  'webhook-added': 'The webhook has been added.',
  'webhook-deleted': 'The webhook has been deleted.',
  pinged: 'A ping has been sent.',
  redelivered: 'The delivery has been queued again.',
};

function SettingsFrame({ ctx, repo, section, error, children }: { ctx: PageContext; repo: Repository; section: Section; error?: string | undefined; children: ComponentChildren }) {
  const items: { id: Section; label: string }[] = [
    { id: 'general', label: 'General' },
    { id: 'collaborators', label: 'Collaborators' },
    { id: 'branches', label: 'Branch protection' },
    { id: 'webhooks', label: 'Webhooks' },
  ];
  return (
    <>
      <h1 class="page-title">Settings</h1>
      <nav aria-label="Repository settings" class="tabs">
        {items.map((i) => (
          <a href={mrPages.settings(repo.owner, repo.name, i.id === 'general' ? '' : i.id)} aria-current={i.id === section ? 'page' : undefined}>
            {i.label}
          </a>
        ))}
      </nav>
      <Flash ctx={ctx} messages={DONE} />
      <ErrorNotice error={error} />
      {children}
    </>
  );
}

const chromeOf = (repo: Repository) => ({ owner: repo.owner, name: repo.name, private: repo.private, tab: 'settings' });

interface ViewOpts {
  error?: string;
  status?: number;
}

async function generalPage(ctx: PageContext, owner: string, name: string, opts: ViewOpts = {}): Promise<PageResult> {
  const repo = await ownedRepo(ctx, owner, name);
  const branches = await ctx.api.get<Branches>(repoApiPath(owner, name, '/branches'));
  const action = mrPages.settings(owner, name);
  return page(
    `Settings · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="general" error={opts.error}>
      <form method="post" action={action} class="stack narrow">
        <CsrfField token={ctx.csrf} />
        <label for="repo-description">Description</label>
        <input id="repo-description" name="description" type="text" maxLength={1000} value={repo.description ?? ''} />
        <label for="repo-default-branch">Default branch</label>
        {branches.branches.length === 0 ? (
          <input id="repo-default-branch" name="default_branch" type="text" value={repo.default_branch} />
        ) : (
          <select id="repo-default-branch" name="default_branch">
            {branches.branches.map((b) => (
              <option value={b.name} selected={b.name === repo.default_branch}>
                {b.name}
              </option>
            ))}
          </select>
        )}
        <fieldset>
          <legend>Visibility</legend>
          <label class="check">
            <input type="radio" name="visibility" value="public" checked={!repo.private} /> Public: anyone can read it
          </label>
          <label class="check">
            <input type="radio" name="visibility" value="private" checked={repo.private} /> Private: only you and collaborators
          </label>
        </fieldset>
        <button type="submit" class="primary">
          Save
        </button>
      </form>
    </SettingsFrame>,
    { repo: chromeOf(repo), ...(opts.status ? { status: opts.status } : {}) },
  );
}

/** Runs a settings change: done, 303 back to the section with a notice; refused, the section
 *  again with the API's message. */
async function settingsChange(ctx: PageContext, owner: string, name: string, section: string, run: () => Promise<unknown>, done: string, again: (o: ViewOpts) => Promise<PageResult>): Promise<PageResult> {
  await ownedRepo(ctx, owner, name);
  const result = await attempt(run, (message, status) => again({ error: message, status }));
  if (!result.ok) return result.result;
  return redirect(`${mrPages.settings(owner, name, section)}?done=${done}`);
}

function saveGeneral(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const visibility = field(ctx.form, 'visibility');
  const body: Record<string, unknown> = { description: field(ctx.form, 'description').trim() || null, default_branch: field(ctx.form, 'default_branch').trim() };
  if (visibility === 'public' || visibility === 'private') body.private = visibility === 'private';
  return settingsChange(ctx, owner, name, '', () => ctx.api.call('PATCH', repoApiPath(owner, name), body), 'saved', (o) => generalPage(ctx, owner, name, o));
}

async function collaboratorsPage(ctx: PageContext, owner: string, name: string, opts: ViewOpts = {}): Promise<PageResult> {
  const repo = await ownedRepo(ctx, owner, name);
  const list = await ctx.api.get<Collaborator[]>(repoApiPath(owner, name, '/collaborators?per_page=100'));
  const action = mrPages.settings(owner, name, 'collaborators');
  return page(
    `Collaborators · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="collaborators" error={opts.error}>
      {list.length === 0 ? (
        <p>No collaborators yet.</p>
      ) : (
        <ul class="item-list">
          {list.map((c) => (
            <li>
              <div>
                <strong>{c.username}</strong> <span class="badge">{c.permission}</span>
              </div>
              <PostButton ctx={ctx} action={`${action}/remove`} fields={{ username: c.username }} label="Remove" kind="danger" />
            </li>
          ))}
        </ul>
      )}
      <form method="post" action={action} class="stack narrow">
        <h2>Add or change a collaborator</h2>
        <CsrfField token={ctx.csrf} />
        <label for="collaborator-username">Username</label>
        <input id="collaborator-username" name="username" type="text" required />
        <label for="collaborator-permission">Permission</label>
        <select id="collaborator-permission" name="permission">
          <option value="read">read</option>
          <option value="write" selected>
            write
          </option>
        </select>
        <button type="submit" class="primary">
          Save collaborator
        </button>
      </form>
    </SettingsFrame>,
    { repo: chromeOf(repo), ...(opts.status ? { status: opts.status } : {}) },
  );
}

function putCollaborator(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const username = field(ctx.form, 'username').trim();
  const again = (o: ViewOpts) => collaboratorsPage(ctx, owner, name, o);
  if (!username) return again({ error: 'Enter a username.', status: 400 });
  return settingsChange(ctx, owner, name, 'collaborators', () => ctx.api.call('PUT', repoApiPath(owner, name, `/collaborators/${encodeURIComponent(username)}`), { permission: field(ctx.form, 'permission') }).catch(userNotFound), 'collaborator-added', again);
}

/** A username that does not exist is the person's typo: said on the page, not a 404 page. */
function userNotFound(err: unknown): never {
  if (err instanceof AppError && err.kind === 'not_found') throw new AppError('validation', err.message === 'Not found' ? 'No such user.' : err.message);
  throw err;
}

function removeCollaborator(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const username = field(ctx.form, 'username');
  return settingsChange(ctx, owner, name, 'collaborators', () => ctx.api.call('DELETE', repoApiPath(owner, name, `/collaborators/${encodeURIComponent(username)}`)).catch(userNotFound), 'collaborator-removed', (o) => collaboratorsPage(ctx, owner, name, o));
}

async function branchesPage(ctx: PageContext, owner: string, name: string, opts: ViewOpts = {}): Promise<PageResult> {
  const repo = await ownedRepo(ctx, owner, name);
  const rules = await ctx.api.get<BranchProtection[]>(repoApiPath(owner, name, '/branch-protections'));
  const action = mrPages.settings(owner, name, 'branches');
  return page(
    `Branch protection · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="branches" error={opts.error}>
      {rules.length === 0 ? (
        <p>No branch is protected.</p>
      ) : (
        <ul class="item-list">
          {rules.map((r) => (
            <li>
              <div>
                <strong>
                  <code>{r.pattern}</code>
                </strong>
                <p class="muted">
                  push: {r.push} · {r.required_approvals} required {r.required_approvals === 1 ? 'approval' : 'approvals'}
                  {r.required_status_checks.length > 0 && <> · checks: {r.required_status_checks.join(', ')}</>}
                  {r.allow_force_pushes && ' · force pushes allowed'}
                  {r.allow_deletions && ' · deletion allowed'}
                  {r.dismiss_stale_approvals ? ' · stale approvals dismissed' : ''}
                </p>
              </div>
              <PostButton ctx={ctx} action={`${action}/delete`} fields={{ pattern: r.pattern }} label="Delete" kind="danger" />
            </li>
          ))}
        </ul>
      )}
      <form method="post" action={action} class="stack narrow">
        <h2>Add or replace a rule</h2>
        <CsrfField token={ctx.csrf} />
        <label for="protection-pattern">Branch name pattern</label>
        <input id="protection-pattern" name="pattern" type="text" required placeholder="main or release/*" />
        <label for="protection-approvals">Required approvals</label>
        <input id="protection-approvals" name="required_approvals" type="number" min={0} max={10} value="0" />
        <label for="protection-checks">Required status checks (comma-separated contexts)</label>
        <input id="protection-checks" name="required_status_checks" type="text" />
        <label for="protection-push">Who may push</label>
        <select id="protection-push" name="push">
          <option value="write">Writers</option>
          <option value="admin">Only the owner</option>
          <option value="nobody">Nobody (merge requests only)</option>
        </select>
        <label class="check">
          <input type="checkbox" name="options" value="allow_force_pushes" /> Allow force pushes
        </label>
        <label class="check">
          <input type="checkbox" name="options" value="allow_deletions" /> Allow deletion
        </label>
        <label class="check">
          <input type="checkbox" name="options" value="dismiss_stale_approvals" checked /> Dismiss approvals when new commits are pushed
        </label>
        <button type="submit" class="primary">
          Save rule
        </button>
      </form>
    </SettingsFrame>,
    { repo: chromeOf(repo), ...(opts.status ? { status: opts.status } : {}) },
  );
}

function putProtection(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const pattern = field(ctx.form, 'pattern').trim();
  const again = (o: ViewOpts) => branchesPage(ctx, owner, name, o);
  if (!pattern) return again({ error: 'Enter a branch name pattern.', status: 400 });
  const approvals = Number(field(ctx.form, 'required_approvals') || '0');
  if (!Number.isInteger(approvals) || approvals < 0 || approvals > 10) return again({ error: 'Required approvals must be a whole number from 0 to 10.', status: 400 });
  const options = fields(ctx.form, 'options');
  const push = field(ctx.form, 'push');
  const body = {
    required_approvals: approvals,
    required_status_checks: field(ctx.form, 'required_status_checks').split(',').map((s) => s.trim()).filter(Boolean),
    push: push === 'admin' || push === 'nobody' ? push : 'write',
    allow_force_pushes: options.includes('allow_force_pushes'),
    allow_deletions: options.includes('allow_deletions'),
    dismiss_stale_approvals: options.includes('dismiss_stale_approvals'),
  };
  return settingsChange(ctx, owner, name, 'branches', () => ctx.api.call('PUT', repoApiPath(owner, name, `/branch-protections/${encodeURIComponent(pattern)}`), body), 'protection-saved', again);
}

function deleteProtection(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const pattern = field(ctx.form, 'pattern');
  return settingsChange(ctx, owner, name, 'branches', () => ctx.api.call('DELETE', repoApiPath(owner, name, `/branch-protections/${encodeURIComponent(pattern)}`)).catch(userNotFound), 'protection-deleted', (o) => branchesPage(ctx, owner, name, o));
}

async function webhooksPage(ctx: PageContext, owner: string, name: string, opts: ViewOpts = {}): Promise<PageResult> {
  const repo = await ownedRepo(ctx, owner, name);
  const hooks = await ctx.api.get<Webhook[]>(repoApiPath(owner, name, '/webhooks'));
  const action = mrPages.settings(owner, name, 'webhooks');
  return page(
    `Webhooks · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="webhooks" error={opts.error}>
      {hooks.length === 0 ? (
        <p>No webhooks.</p>
      ) : (
        <ul class="item-list webhook-list">
          {hooks.map((h) => (
            <li>
              <div>
                <a href={mrPages.webhook(owner, name, h.id)} class="webhook-url">
                  {h.url}
                </a>
                <p class="muted">
                  events: {h.events} · {h.is_active ? 'active' : 'inactive'} · added <Time iso={h.created_at} />
                </p>
              </div>
              <PostButton ctx={ctx} action={mrPages.webhook(owner, name, h.id, '/delete')} label="Delete" kind="danger" />
            </li>
          ))}
        </ul>
      )}
      <form method="post" action={action} class="stack narrow">
        <h2>Add a webhook</h2>
        <CsrfField token={ctx.csrf} />
        <label for="webhook-url">Payload URL</label>
        <input id="webhook-url" name="url" type="url" required placeholder="https://example.com/hook" />
        <label for="webhook-secret">Secret (signs each delivery)</label>
        <input id="webhook-secret" name="secret" type="password" autocomplete="off" />
        <label for="webhook-events">Events (comma-separated)</label>
        <input id="webhook-events" name="events" type="text" value="push" />
        <button type="submit" class="primary">
          Add webhook
        </button>
      </form>
    </SettingsFrame>,
    { repo: chromeOf(repo), ...(opts.status ? { status: opts.status } : {}) },
  );
}

function addWebhook(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const body: Record<string, unknown> = { url: field(ctx.form, 'url').trim() };
  const secret = field(ctx.form, 'secret');
  const events = field(ctx.form, 'events').trim();
  if (secret) body.secret = secret;
  if (events) body.events = events;
  return settingsChange(ctx, owner, name, 'webhooks', () => ctx.api.call('POST', repoApiPath(owner, name, '/webhooks'), body), 'webhook-added', (o) => webhooksPage(ctx, owner, name, o));
}

function deleteWebhook(ctx: PageContext, owner: string, name: string, id: string): Promise<PageResult> {
  return settingsChange(ctx, owner, name, 'webhooks', () => ctx.api.call('DELETE', repoApiPath(owner, name, `/webhooks/${encodeURIComponent(id)}`)), 'webhook-deleted', (o) => webhooksPage(ctx, owner, name, o));
}

const pretty = (value: unknown) => {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
};

/** One webhook's deliveries, newest first, each with what was sent and every attempt's answer. */
async function webhookPage(ctx: PageContext, owner: string, name: string, id: string, opts: ViewOpts = {}): Promise<PageResult> {
  const repo = await ownedRepo(ctx, owner, name);
  const hooks = await ctx.api.get<Webhook[]>(repoApiPath(owner, name, '/webhooks'));
  const hook = hooks.find((h) => h.id === id);
  if (!hook) throw new AppError('not_found', 'Not found');
  const hookApi = repoApiPath(owner, name, `/webhooks/${encodeURIComponent(id)}`);
  const list = await ctx.api.get<Delivery[]>(`${hookApi}/deliveries?limit=20`);
  const details = await Promise.all(list.map((d) => ctx.api.get<DeliveryDetail>(`${hookApi}/deliveries/${encodeURIComponent(d.id)}`)));
  const here = mrPages.webhook(owner, name, id);
  return page(
    `Webhook · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="webhooks" error={opts.error}>
      <h2 class="webhook-url">{hook.url}</h2>
      <p class="muted">events: {hook.events}</p>
      <PostButton ctx={ctx} action={`${here}/ping`} label="Send a ping" />
      <h2>Recent deliveries</h2>
      {details.length === 0 && <p>No deliveries yet.</p>}
      <ul class="delivery-list">
        {details.map((d) => (
          <li class={`delivery delivery-${d.status}`}>
            <details>
              <summary>
                <span class={`badge delivery-status-${d.status}`}>{d.status}</span> <strong>{d.event}</strong> · <Time iso={d.created_at} />
                {d.response_status !== null && <> · HTTP {d.response_status}</>} · {d.attempt_log.length} {d.attempt_log.length === 1 ? 'attempt' : 'attempts'}
              </summary>
              <h3>Request</h3>
              <pre class="plain">
                {`POST ${hook.url}\nX-Githost-Event: ${d.event}\nX-Githost-Delivery: ${d.id}\n\n${pretty(d.payload)}`}
              </pre>
              {d.attempt_log.map((a) => (
                <div class="attempt">
                  <h3>
                    Attempt {a.number}: {a.status} · <Time iso={a.created_at} />
                    {a.duration_ms !== null && <> · {a.duration_ms} ms</>}
                  </h3>
                  <pre class="plain">{a.error ? `Error: ${a.error}` : `HTTP ${a.response_status ?? '?'}\n\n${a.response_body ?? ''}`}</pre>
                </div>
              ))}
              {d.status !== 'pending' && <PostButton ctx={ctx} action={`${here}/deliveries/${encodeURIComponent(d.id)}/redeliver`} label="Redeliver" />}
            </details>
          </li>
        ))}
      </ul>
    </SettingsFrame>,
    { repo: chromeOf(repo), ...(opts.status ? { status: opts.status } : {}) },
  );
}

async function webhookAction(ctx: PageContext, owner: string, name: string, id: string, path: string, done: string): Promise<PageResult> {
  await ownedRepo(ctx, owner, name);
  const result = await attempt(
    () => ctx.api.call('POST', repoApiPath(owner, name, `/webhooks/${encodeURIComponent(id)}${path}`)),
    (message, status) => webhookPage(ctx, owner, name, id, { error: message, status }),
  );
  if (!result.ok) return result.result;
  return redirect(`${mrPages.webhook(owner, name, id)}?done=${done}`);
}

const S = '/:owner/:repo/-/settings';
export const settingsPages: PageDefinition[] = [
  { method: 'GET', path: S, signedIn: true, handle: (ctx, p) => generalPage(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: S, signedIn: true, handle: (ctx, p) => saveGeneral(ctx, p.owner!, p.repo!) },
  { method: 'GET', path: `${S}/collaborators`, signedIn: true, handle: (ctx, p) => collaboratorsPage(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/collaborators`, signedIn: true, handle: (ctx, p) => putCollaborator(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/collaborators/remove`, signedIn: true, handle: (ctx, p) => removeCollaborator(ctx, p.owner!, p.repo!) },
  { method: 'GET', path: `${S}/branches`, signedIn: true, handle: (ctx, p) => branchesPage(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/branches`, signedIn: true, handle: (ctx, p) => putProtection(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/branches/delete`, signedIn: true, handle: (ctx, p) => deleteProtection(ctx, p.owner!, p.repo!) },
  { method: 'GET', path: `${S}/webhooks`, signedIn: true, handle: (ctx, p) => webhooksPage(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/webhooks`, signedIn: true, handle: (ctx, p) => addWebhook(ctx, p.owner!, p.repo!) },
  { method: 'GET', path: `${S}/webhooks/:id`, signedIn: true, handle: (ctx, p) => webhookPage(ctx, p.owner!, p.repo!, p.id!) },
  { method: 'POST', path: `${S}/webhooks/:id/delete`, signedIn: true, handle: (ctx, p) => deleteWebhook(ctx, p.owner!, p.repo!, p.id!) },
  { method: 'POST', path: `${S}/webhooks/:id/ping`, signedIn: true, handle: (ctx, p) => webhookAction(ctx, p.owner!, p.repo!, p.id!, '/pings', 'pinged') },
  { method: 'POST', path: `${S}/webhooks/:id/deliveries/:delivery/redeliver`, signedIn: true, handle: (ctx, p) => webhookAction(ctx, p.owner!, p.repo!, p.id!, `/deliveries/${encodeURIComponent(p.delivery!)}/redeliver`, 'redelivered') },
];
