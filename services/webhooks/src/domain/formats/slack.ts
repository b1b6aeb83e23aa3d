import type { EventEnvelope } from '@githost/bus';
import { deliveryHeaders } from '../signing.js';
import type { FormatContext, FormattedDelivery, WebhookFormat } from './types.js';

/**
 * Slack's incoming-webhook message (`{"text": ...}`), which Mattermost and Rocket.Chat accept as
 * well: one line per push or merge request event, links in Slack's `<url|label>` form. Other
 * events are not sent to a slack webhook (docs/decisions/webhook-formats.md#slack).
 */

/** Slack's escaping of message text: only `&`, `<` and `>` (Slack "Formatting text", escaping). */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A link; a `|` in the label would end it early, so it is dropped from labels. */
export function slackLink(url: string, label: string): string {
  return `<${url}|${slackEscape(label).replace(/\|/g, '')}>`;
}

interface PushIn {
  ref: string;
  after: string;
  created: boolean;
  deleted: boolean;
  forced: boolean;
  sender: { username: string };
  commits: Array<{ id: string; message: string; author: { name: string } }>;
}

interface MergeRequestIn {
  action: string;
  sender: { username: string };
  merge_request: { number: number; title: string };
}

const enc = (...segments: string[]) => segments.map(encodeURIComponent).join('/');

function refName(ref: string): { kind: 'branch' | 'tag'; name: string } {
  if (ref.startsWith('refs/tags/')) return { kind: 'tag', name: ref.slice('refs/tags/'.length) };
  return { kind: 'branch', name: ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref };
}

/** At most this many commits are listed; the count says how many there were. */
const MAX_LISTED_COMMITS = 5;

function pushText(ctx: FormatContext, event: EventEnvelope): string {
  const p = event.payload as PushIn;
  const { owner, name } = event.repository;
  const repoUrl = `${ctx.publicUrl}/${enc(owner, name)}`;
  const repo = slackLink(repoUrl, `${owner}/${name}`);
  const ref = refName(p.ref);
  const who = slackEscape(p.sender.username);
  if (p.deleted) return `[${repo}] ${ref.kind} ${slackEscape(ref.name)} deleted by ${who}`;
  const refLink = slackLink(`${repoUrl}/-/tree/${ref.name.split('/').map(encodeURIComponent).join('/')}`, ref.name);
  if (p.created && p.commits.length === 0) return `[${repo}] ${ref.kind} ${refLink} created by ${who}`;
  const n = p.commits.length;
  const head = `[${repo}:${refLink}] ${n} new commit${n === 1 ? '' : 's'} ${p.forced ? 'force-pushed' : 'pushed'} by ${who}`;
  // Newest first, as chat readers expect; githost lists them oldest first.
  const lines = [...p.commits].reverse().slice(0, MAX_LISTED_COMMITS).map((c) => {
    const subject = c.message.split('\n', 1)[0] ?? '';
    return `${slackLink(`${repoUrl}/-/commit/${c.id}`, c.id.slice(0, 10))}: ${slackEscape(subject)} - ${slackEscape(c.author.name)}`;
  });
  return [head, ...lines].join('\n');
}

/** How each merge request action reads in a chat line. */
const MR_VERBS: Record<string, string> = {
  opened: 'opened',
  edited: 'edited',
  closed: 'closed',
  reopened: 'reopened',
  synchronize: 'updated',
  merged: 'merged',
};

function mergeRequestText(ctx: FormatContext, event: EventEnvelope): string | null {
  const p = event.payload as MergeRequestIn;
  const verb = MR_VERBS[p.action];
  if (!verb) return null;
  const { owner, name } = event.repository;
  const repoUrl = `${ctx.publicUrl}/${enc(owner, name)}`;
  const mr = p.merge_request;
  return `[${slackLink(repoUrl, `${owner}/${name}`)}] Merge request ${verb}: ${slackLink(`${repoUrl}/-/merge-requests/${mr.number}`, `#${mr.number} ${mr.title}`)} by ${slackEscape(p.sender.username)}`;
}

function deliveries(event: EventEnvelope, ctx: FormatContext): FormattedDelivery[] {
  let text: string | null = null;
  if (event.kind === 'push') text = pushText(ctx, event);
  else if (event.kind === 'merge_request') text = mergeRequestText(ctx, event);
  return text === null ? [] : [{ suffix: '', event: event.kind, payload: { text } }];
}

export const slackFormat: WebhookFormat = {
  deliveries,
  ping: (payload, ctx) => ({
    event: 'ping',
    payload: { text: `[${slackLink(`${ctx.publicUrl}/${enc(payload.repository.owner, payload.repository.name)}`, payload.repository.full_name)}] Ping from githost, sent by ${slackEscape(payload.sender.username)}` },
  }),
  // Chat servers ignore them; a receiver of our own may still check the signature.
  headers: deliveryHeaders,
};

