import { validation } from '@githost/errors';

/** Event kinds a webhook can select (CONTRACT §5, §9); `*` selects all of them. */
export const EVENT_KINDS = ['push', 'merge_request'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
const ALLOWED = new Set<string>([...EVENT_KINDS, '*']);

/**
 * Normalises a create request's `events` into the stored comma list.
 * seed §4 webhooks rule 3: omitted means `push`; CONTRACT §9: empty means `push`, names are
 * trimmed, anything but `push`, `merge_request` or `*` is refused.
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

/** CONTRACT §5: a webhook receives an event when its list names the event's kind or is `*`. */
export function selectsEvent(events: string, kind: string): boolean {
  return events.split(',').some((n) => {
    const name = n.trim();
    return name === '*' || name === kind;
  });
}
