import type { WebhookSettings } from '@githost/api-types';
import { giteaIdOf } from '@githost/gitea-ids';
import { unprocessable } from '@githost/errors';

/**
 * githost webhooks as Gitea's `Hook`, and Gitea's `CreateHookOption` / `EditHookOption` as
 * githost's webhook requests (docs/decisions/gitea-api.md#hooks).
 */

/** A githost webhook as its settings endpoint answers it (the seed's fields plus `type`). */
export type GithostHook = Pick<WebhookSettings, 'id' | 'url' | 'events' | 'type' | 'is_active' | 'created_at'>;

export const hookId = (uuid: string) => giteaIdOf('hook', uuid);

/** What each githost event name delivers, in Gitea's event names (webhooks' Gitea format sends these). */
const PULL_ACTIONS = ['opened', 'edited', 'closed', 'reopened', 'merged'];
const GITHOST_TO_GITEA: Record<string, string[]> = {
  push: ['push', 'create', 'delete'],
  merge_request: ['pull_request'],
  'merge_request.*': ['pull_request', 'pull_request_sync', 'pull_request_review_request'],
  'merge_request.synchronize': ['pull_request_sync'],
  'merge_request.review_requested': ['pull_request_review_request'],
  'merge_request.review_request_removed': ['pull_request_review_request'],
  ...Object.fromEntries(PULL_ACTIONS.map((a) => [`merge_request.${a}`, ['pull_request']])),
  merge_request_review: ['pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment'],
  merge_request_comment: ['pull_request_comment'],
  status: ['status'],
};
GITHOST_TO_GITEA['*'] = [...new Set(Object.values(GITHOST_TO_GITEA).flat())];

/**
 * Gitea's event names -> githost's. Gitea's events of units githost has not (issues, releases,
 * wiki, packages, forks, repository) are accepted and never fire, as on a Gitea instance with
 * those units disabled.
 */
const GITEA_TO_GITHOST: Record<string, string[]> = {
  push: ['push'],
  create: ['push'],
  delete: ['push'],
  pull_request: PULL_ACTIONS.map((a) => `merge_request.${a}`),
  pull_request_sync: ['merge_request.synchronize'],
  pull_request_review_request: ['merge_request.review_requested', 'merge_request.review_request_removed'],
  pull_request_review_approved: ['merge_request_review'],
  pull_request_review_rejected: ['merge_request_review'],
  pull_request_review_comment: ['merge_request_review'],
  pull_request_comment: ['merge_request_comment'],
  status: ['status'],
};

export function giteaEvents(githostEvents: string): string[] {
  const out = new Set<string>();
  for (const name of githostEvents.split(',').map((s) => s.trim())) for (const e of (Object.hasOwn(GITHOST_TO_GITEA, name) && GITHOST_TO_GITEA[name]) || []) out.add(e);
  return [...out];
}

/** Gitea's events -> githost's events string; none githost can send: null (the hook never fires). */
export function githostEvents(gitea: string[]): string | null {
  const out = new Set<string>();
  for (const name of gitea) for (const e of (Object.hasOwn(GITEA_TO_GITHOST, name) && GITEA_TO_GITHOST[name]) || []) out.add(e);
  return out.size === 0 ? null : [...out].join(',');
}

export function toGiteaHook(h: GithostHook) {
  return {
    id: hookId(h.id),
    type: h.type,
    branch_filter: '*',
    config: { url: h.url, content_type: 'json', http_method: 'post' },
    events: giteaEvents(h.events),
    authorization_header: '',
    active: h.is_active,
    updated_at: h.created_at,
    created_at: h.created_at,
  };
}

/** Gitea's hook types githost sends (`gogs` is Gitea's own payload under Gogs' headers: not kept). */
const TYPES = new Set(['gitea', 'slack', 'githost']);

export interface HookChanges {
  url?: string;
  secret?: string | null;
  events?: string;
  is_active?: boolean;
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function configChanges(config: Record<string, unknown>, out: HookChanges): void {
  const ct = config.content_type;
  if (ct !== undefined && ct !== 'json') throw unprocessable('Invalid content type: githost sends json only');
  const method = config.http_method;
  if (method !== undefined && method !== '' && String(method).toLowerCase() !== 'post') throw unprocessable('Invalid http method: githost sends POST only');
  if (typeof config.url === 'string') out.url = config.url;
  if (typeof config.secret === 'string') out.secret = config.secret === '' ? null : config.secret;
}

function refuseFilters(b: Record<string, unknown>): void {
  if (typeof b.branch_filter === 'string' && b.branch_filter !== '' && b.branch_filter !== '*') throw unprocessable('githost webhooks have no branch filter: branch_filter must be "*"');
  if (typeof b.authorization_header === 'string' && b.authorization_header !== '') throw unprocessable('githost webhooks send no authorization header: sign with config.secret');
}

/**
 * Gitea's `CreateHookOption` -> githost's create body plus whether it is to be active (Gitea's
 * default is inactive; githost creates active). No events: Gitea's default, `push`. Events githost
 * cannot send only: 422 rather than a hook that never fires.
 */
export function toCreateHook(body: unknown): { create: { url: string; secret?: string; events: string; type: string }; active: boolean } {
  const b = obj(body);
  const type = typeof b.type === 'string' ? b.type : '';
  if (!TYPES.has(type)) throw unprocessable(`Invalid hook type: githost sends gitea, slack or githost, not ${JSON.stringify(type)}`);
  const config = obj(b.config);
  if (typeof config.url !== 'string' || config.url === '') throw unprocessable('Missing config option: url');
  refuseFilters(b);
  const changes: HookChanges = {};
  configChanges(config, changes);
  const names = Array.isArray(b.events) ? b.events.filter((e): e is string => typeof e === 'string') : [];
  const events = names.length === 0 ? 'push' : githostEvents(names);
  if (events === null) throw unprocessable(`githost sends none of these events: ${names.join(', ')}`);
  return {
    create: { url: changes.url!, ...(changes.secret ? { secret: changes.secret } : {}), events, type },
    active: b.active === true,
  };
}

/** Gitea's `EditHookOption` -> githost's webhook changes; only what is given changes. */
export function toEditHook(body: unknown): HookChanges {
  const b = obj(body);
  refuseFilters(b);
  const out: HookChanges = {};
  if (b.config !== undefined && b.config !== null) configChanges(obj(b.config), out);
  if (Array.isArray(b.events)) {
    const names = b.events.filter((e): e is string => typeof e === 'string');
    const events = githostEvents(names);
    if (events === null) throw unprocessable(`githost sends none of these events: ${names.join(', ')}`);
    out.events = events;
  }
  if (typeof b.active === 'boolean') out.is_active = b.active;
  return out;
}
