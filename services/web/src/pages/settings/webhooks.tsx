import { AppError } from '@githost/errors';
import { apiPath } from '../../clients/api.js';
import { Time } from '../../views/components.js';
import { attempt, CsrfField, PostButton } from '../../views/forms.js';
import { repoPages } from '../paths.js';
import { page, field, redirect, type PageContext, type PageResult } from '../registry.js';
import { ownedRepo, ownedRepoChrome, settingsChange, SettingsFrame, type ViewOpts } from './frame.js';

export async function webhooksPage(ctx: PageContext, owner: string, name: string, opts: ViewOpts = {}): Promise<PageResult> {
  const { repo, chrome } = await ownedRepoChrome(ctx, owner, name);
  const hooks = await ctx.api.get(apiPath('/api/repos/{owner}/{repo}/webhooks', { owner, repo: name }));
  const action = repoPages.settings(owner, name, 'webhooks');
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
                <a href={repoPages.webhook(owner, name, h.id)} class="webhook-url">
                  {h.url}
                </a>
                <p class="muted">
                  events: {h.events} · {h.is_active ? 'active' : 'inactive'} · added <Time iso={h.created_at} />
                </p>
              </div>
              <PostButton ctx={ctx} action={repoPages.webhook(owner, name, h.id, '/delete')} label="Delete" kind="danger" />
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
    { repo: chrome, ...(opts.status ? { status: opts.status } : {}) },
  );
}

export function addWebhook(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const body: Record<string, unknown> = { url: field(ctx.form, 'url').trim() };
  const secret = field(ctx.form, 'secret');
  const events = field(ctx.form, 'events').trim();
  if (secret) body.secret = secret;
  if (events) body.events = events;
  return settingsChange(ctx, owner, name, 'webhooks', () => ctx.api.call('POST', apiPath('/api/repos/{owner}/{repo}/webhooks', { owner, repo: name }), body), 'webhook-added', (o) => webhooksPage(ctx, owner, name, o));
}

export function deleteWebhook(ctx: PageContext, owner: string, name: string, id: string): Promise<PageResult> {
  return settingsChange(ctx, owner, name, 'webhooks', () => ctx.api.call('DELETE', apiPath('/api/repos/{owner}/{repo}/webhooks/{webhook_id}', { owner, repo: name, webhook_id: id })), 'webhook-deleted', (o) => webhooksPage(ctx, owner, name, o));
}

const pretty = (value: unknown) => {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
};

/**
 * One webhook's newest deliveries, one line each from the list alone; what was sent and every
 * attempt's answer are on each delivery's own page, as GitHub shows them on demand: a detail per
 * line was an API call per line (docs/decisions/big-pages.md#the-webhook-page).
 */
export async function webhookPage(ctx: PageContext, owner: string, name: string, id: string, opts: ViewOpts = {}): Promise<PageResult> {
  const hookAt = { owner, repo: name, webhook_id: id };
  // The owner's check first: anyone else gets the settings' 404, never the webhook API's own answer.
  const { repo, chrome } = await ownedRepoChrome(ctx, owner, name);
  const [hook, list] = await Promise.all([webhookOf(ctx, owner, name, id), ctx.api.get(apiPath('/api/repos/{owner}/{repo}/webhooks/{webhook_id}/deliveries', hookAt, '?limit=20'))]);
  const here = repoPages.webhook(owner, name, id);
  return page(
    `Webhook · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="webhooks" error={opts.error}>
      <h2 class="webhook-url">{hook.url}</h2>
      <p class="muted">events: {hook.events}</p>
      <PostButton ctx={ctx} action={`${here}/ping`} label="Send a ping" />
      <h2>Recent deliveries</h2>
      {list.length === 0 && <p>No deliveries yet.</p>}
      <ul class="delivery-list">
        {list.map((d) => (
          <li class={`delivery delivery-${d.status}`}>
            <a href={repoPages.delivery(owner, name, id, d.id)}>
              <DeliverySummary delivery={d} attempts={d.attempts} />
            </a>
            {d.status !== 'pending' && <PostButton ctx={ctx} action={repoPages.delivery(owner, name, id, d.id, '/redeliver')} label="Redeliver" />}
          </li>
        ))}
      </ul>
    </SettingsFrame>,
    { repo: chrome, ...(opts.status ? { status: opts.status } : {}) },
  );
}

/** One delivery: what was sent and every attempt's answer. */
export async function deliveryPage(ctx: PageContext, owner: string, name: string, id: string, deliveryId: string, opts: ViewOpts = {}): Promise<PageResult> {
  const hookAt = { owner, repo: name, webhook_id: id };
  const { repo, chrome } = await ownedRepoChrome(ctx, owner, name);
  const [hook, d] = await Promise.all([
    webhookOf(ctx, owner, name, id),
    ctx.api.get(apiPath('/api/repos/{owner}/{repo}/webhooks/{webhook_id}/deliveries/{delivery_id}', { ...hookAt, delivery_id: deliveryId })),
  ]);
  const here = repoPages.webhook(owner, name, id);
  return page(
    `Delivery · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="webhooks" error={opts.error}>
      <p>
        <a href={here} class="webhook-url">
          ← {hook.url}
        </a>
      </p>
      <h2 class={`delivery delivery-${d.status}`}>
        <DeliverySummary delivery={d} attempts={d.attempt_log.length} />
      </h2>
      <div class="delivery-detail">
        <h3>Request</h3>
        <pre class="plain">{`POST ${hook.url}\nX-Githost-Event: ${d.event}\nX-Githost-Delivery: ${d.id}\n\n${pretty(d.payload)}`}</pre>
        {d.attempt_log.map((a) => (
          <div class="attempt">
            <h3>
              Attempt {a.number}: {a.status} · <Time iso={a.created_at} />
              {a.duration_ms !== null && <> · {a.duration_ms} ms</>}
            </h3>
            <pre class="plain">{a.error ? `Error: ${a.error}` : `HTTP ${a.response_status ?? '?'}\n\n${a.response_body ?? ''}`}</pre>
          </div>
        ))}
      </div>
      {d.status !== 'pending' && <PostButton ctx={ctx} action={repoPages.delivery(owner, name, id, d.id, '/redeliver')} label="Redeliver" />}
    </SettingsFrame>,
    { repo: chrome, ...(opts.status ? { status: opts.status } : {}) },
  );
}

function DeliverySummary({ delivery: d, attempts }: { delivery: { status: string; event: string; created_at: string; response_status: number | null }; attempts: number }) {
  return (
    <>
      <span class={`badge delivery-status-${d.status}`}>{d.status}</span> <strong>{d.event}</strong> · <Time iso={d.created_at} />
      {d.response_status !== null && <> · HTTP {d.response_status}</>} · {attempts} {attempts === 1 ? 'attempt' : 'attempts'}
    </>
  );
}

/** The webhook `id` of the repository (its settings), or not found. */
async function webhookOf(ctx: PageContext, owner: string, name: string, id: string) {
  const hooks = await ctx.api.get(apiPath('/api/repos/{owner}/{repo}/webhooks', { owner, repo: name }));
  const hook = hooks.find((h) => h.id === id);
  if (!hook) throw new AppError('not_found', 'Not found');
  return hook;
}

/** A ping (no `delivery`) or a redelivery of `delivery`. */
export async function webhookAction(ctx: PageContext, owner: string, name: string, id: string, delivery: string | undefined, done: string): Promise<PageResult> {
  await ownedRepo(ctx, owner, name);
  const result = await attempt(
    () => {
      const hookAt = { owner, repo: name, webhook_id: id };
      return delivery === undefined ? ctx.api.call('POST', apiPath('/api/repos/{owner}/{repo}/webhooks/{webhook_id}/pings', hookAt)) : ctx.api.call('POST', apiPath('/api/repos/{owner}/{repo}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', { ...hookAt, delivery_id: delivery }));
    },
    (message, status) => (delivery === undefined ? webhookPage(ctx, owner, name, id, { error: message, status }) : deliveryPage(ctx, owner, name, id, delivery, { error: message, status })),
  );
  if (!result.ok) return result.result;
  // A redelivery is another attempt of the same delivery: back to its page, which lists them.
  return redirect(`${delivery === undefined ? repoPages.webhook(owner, name, id) : repoPages.delivery(owner, name, id, delivery)}?done=${done}`);
}
