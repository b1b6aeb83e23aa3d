import { validation } from '@githost/errors';

/** Event kinds delivered to webhooks (CONTRACT §9, the bus's routing keys). */
export const EVENT_KINDS = ['push', 'merge_request', 'merge_request_review', 'merge_request_comment', 'status'] as const;

/** merge_request lifecycle actions a webhook can ask for by name (`merge_request.<action>`). */
export const MERGE_REQUEST_ACTIONS = ['opened', 'edited', 'closed', 'reopened', 'synchronize', 'merged', 'review_requested', 'review_request_removed'] as const;

/** The seed's `merge_request` name selects merges only: its one action (seed §6). */
const SEED_MERGE_REQUEST_ACTION = 'merged';

/** Every name a webhook's `events` may hold (CONTRACT §9). */
export const EVENT_NAMES: readonly string[] = [
  'push',
  'merge_request',
  ...MERGE_REQUEST_ACTIONS.map((a) => `merge_request.${a}`),
  'merge_request.*',
  'merge_request_review',
  'merge_request_comment',
  'status',
  '*',
];
const ALLOWED = new Set(EVENT_NAMES);
const DELIVERABLE = new Set<string>(EVENT_KINDS);

/**
 * Normalises a create request's `events` into the stored comma list.
 * seed §4 webhooks rule 3: omitted means `push`; CONTRACT §9: empty means `push`, names are
 * trimmed and kept once, anything not in EVENT_NAMES is refused.
 */
export function parseEvents(input: unknown): string {
  if (input === undefined || input === null) return 'push';
  if (typeof input !== 'string') throw validation('events must be a string');
  const names = input
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n.length > 0);
  if (names.length === 0) return 'push';
  for (const name of names) {
    if (!ALLOWED.has(name)) throw validation(`Unknown event: ${name}`);
  }
  return [...new Set(names)].join(',');
}

/** The action of an event's payload (`merge_request` events carry one), or undefined. */
export function actionOf(payload: unknown): string | undefined {
  const action = payload && typeof payload === 'object' ? (payload as { action?: unknown }).action : undefined;
  return typeof action === 'string' ? action : undefined;
}

/**
 * CONTRACT §9: whether a webhook's `events` list selects an event of `kind` (with `action`).
 * `*` selects every deliverable kind and action; `merge_request` only merges (the seed's one
 * action); `merge_request.*` every action; `merge_request.<action>` that action. A list naming
 * several that match still selects the event once: the answer is one boolean per (webhook, event).
 */
export function selectsEvent(events: string, kind: string, action?: string): boolean {
  if (!DELIVERABLE.has(kind)) return false;
  return events.split(',').some((n) => nameSelects(n.trim(), kind, action));
}

function nameSelects(name: string, kind: string, action: string | undefined): boolean {
  if (name === '*') return true;
  if (kind !== 'merge_request') return name === kind;
  if (name === 'merge_request') return action === SEED_MERGE_REQUEST_ACTION;
  if (name === 'merge_request.*') return true;
  return action !== undefined && name === `merge_request.${action}`;
}
