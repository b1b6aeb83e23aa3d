import type { EventEnvelope } from '@githost/bus';
import { createHmac } from 'node:crypto';
import type { DeliveryRequest } from '../signing.js';
import { giteaIdOf, giteaRepositoryOf, giteaUserOf, pullRequestKey, statusKey } from '@githost/gitea-ids';
import type { FormatContext, FormattedDelivery, WebhookFormat } from './types.js';

/**
 * Gitea's webhook format (docs/decisions/webhook-formats.md): Gitea's headers and the JSON of its
 * `modules/structs` payloads, built from githost's events. Fields githost's events do not carry are
 * Gitea's zero values (docs/decisions/webhook-formats.md#what-gitea-payloads-lack).
 */

/** Gitea's `User-Agent` for webhook requests; tools do not check it, it names the sender. */
const USER_AGENT = 'githost-hookshot (gitea format)';

interface EventRepository {
  id: string;
  owner: string;
  name: string;
}

interface PushIn {
  ref: string;
  before: string;
  after: string;
  created: boolean;
  deleted: boolean;
  sender: { username: string };
  commits: Array<{ id: string; message: string; author: { name: string; email: string }; timestamp: string }>;
}

interface MergeRequestIn {
  action: string;
  sender: { username: string };
  merge_request: {
    number: number;
    title: string;
    state: string;
    description?: string | null;
    source_branch?: string;
    target_branch?: string;
    source_sha?: string;
    head_sha?: string;
  };
  changes?: Record<string, { from: string | null }>;
  /** `review_requested` and `review_request_removed`: whom the request is for. */
  requested_reviewer?: { username: string };
}

interface ReviewIn extends MergeRequestIn {
  review: { id: string; state: 'approved' | 'changes_requested' | 'commented'; body: string; commit_sha: string };
}

interface StatusIn {
  sha: string;
  state: string;
  context: string;
  description: string | null;
  target_url: string | null;
  sender: { username: string };
}

const path = (...segments: string[]) => segments.map(encodeURIComponent).join('/');

/** Gitea's `User`: what githost's events know is the name ('' for nobody known: id 0). */
function giteaUser(ctx: FormatContext, username: string) {
  return giteaUserOf({ username }, ctx.publicUrl);
}

/** Gitea's `Repository`: what githost's events know is its uuid, owner and name. */
function giteaRepository(ctx: FormatContext, repo: EventRepository) {
  return giteaRepositoryOf({ id: repo.id, owner: repo.owner, name: repo.name }, ctx.publicUrl);
}

function payloadCommit(ctx: FormatContext, repo: EventRepository, c: PushIn['commits'][number]) {
  const person = { name: c.author.name, email: c.author.email, username: '' };
  return {
    id: c.id,
    message: c.message,
    url: `${ctx.publicUrl}/${path(repo.owner, repo.name)}/-/commit/${c.id}`,
    author: person,
    committer: person,
    verification: null,
    timestamp: c.timestamp,
    // githost's push event lists commits without their files (docs/decisions/webhook-formats.md#what-gitea-payloads-lack)
    added: [] as string[],
    removed: [] as string[],
    modified: [] as string[],
  };
}

/** `refs/heads/x` -> (`branch`, `x`); `refs/tags/v1` -> (`tag`, `v1`); anything else is kept whole as a branch. */
function refKind(ref: string): { refType: 'branch' | 'tag'; name: string } {
  if (ref.startsWith('refs/tags/')) return { refType: 'tag', name: ref.slice('refs/tags/'.length) };
  if (ref.startsWith('refs/heads/')) return { refType: 'branch', name: ref.slice('refs/heads/'.length) };
  return { refType: 'branch', name: ref };
}

/**
 * push, and beside it `create` for a new ref or `delete` for a removed one, as Gitea sends them
 * (githost has no create/delete events of its own: they come from the push). A deletion is a
 * `delete` only: Gitea sends no push for it.
 */
function pushDeliveries(ctx: FormatContext, event: EventEnvelope): FormattedDelivery[] {
  const p = event.payload as PushIn;
  const repo = event.repository;
  const repository = giteaRepository(ctx, repo);
  const sender = giteaUser(ctx, p.sender.username);
  const { refType, name } = refKind(p.ref);
  if (p.deleted) {
    return [{ suffix: ':delete', event: 'delete', payload: { ref: name, ref_type: refType, pusher_type: 'user', repository, sender } }];
  }
  const out: FormattedDelivery[] = [];
  if (p.created) out.push({ suffix: ':create', event: 'create', payload: { sha: p.after, ref: name, ref_type: refType, repository, sender } });
  // githost lists the new commits oldest first; Gitea newest first, the pushed tip at the head.
  const commits = p.commits.map((c) => payloadCommit(ctx, repo, c)).reverse();
  const base = `${ctx.publicUrl}/${path(repo.owner, repo.name)}`;
  const compareUrl = p.created || commits.length === 0 ? '' : `${base}/-/compare?${new URLSearchParams({ base: p.before, head: p.after }).toString()}`;
  out.push({
    suffix: '',
    event: 'push',
    payload: {
      ref: p.ref,
      before: p.before,
      after: p.after,
      compare_url: compareUrl,
      commits,
      total_commits: commits.length,
      head_commit: commits.find((c) => c.id === p.after) ?? commits[0] ?? null,
      repository,
      pusher: sender,
      sender,
    },
  });
  return out;
}

/** Gitea's `PullRequest` (modules/structs/pull.go) from a merge request event's fields. */
function pullRequest(ctx: FormatContext, repo: EventRepository, mr: MergeRequestIn['merge_request'], occurredAt: string, author: string | null) {
  const repository = giteaRepository(ctx, repo);
  const html = `${repository.html_url}/-/merge-requests/${mr.number}`;
  const merged = mr.state === 'merged';
  const branch = (ref: string | undefined, sha: string | undefined) => ({
    label: ref ?? '',
    ref: ref ?? '',
    sha: sha ?? '',
    repo_id: repository.id,
    repo: repository,
  });
  return {
    id: giteaIdOf('pull_request', pullRequestKey(repo.id, mr.number)),
    url: html,
    number: mr.number,
    // Gitea's `user` is the poster. githost's events name only the actor, who is the author when
    // the action is `opened`; otherwise an empty user (docs/decisions/webhook-formats.md#what-gitea-payloads-lack).
    user: giteaUser(ctx, author ?? ''),
    title: mr.title,
    body: mr.description ?? '',
    labels: [] as unknown[],
    milestone: null,
    assignee: null,
    assignees: null,
    requested_reviewers: null,
    state: mr.state === 'open' ? 'open' : 'closed',
    draft: false,
    is_locked: false,
    comments: 0,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    mergeable: false,
    merged,
    merged_at: merged ? occurredAt : null,
    merge_commit_sha: null,
    merged_by: null,
    allow_maintainer_edit: false,
    base: branch(mr.target_branch, undefined),
    head: branch(mr.source_branch, mr.head_sha),
    merge_base: '',
    due_date: null,
    created_at: null,
    updated_at: occurredAt,
    closed_at: mr.state === 'open' ? null : occurredAt,
  };
}

/** githost's lifecycle action -> Gitea's (action, event type). `merged` is Gitea's `closed` with `merged: true`. */
const PULL_REQUEST_ACTIONS: Record<string, { action: string; type: string }> = {
  opened: { action: 'opened', type: 'pull_request' },
  edited: { action: 'edited', type: 'pull_request' },
  closed: { action: 'closed', type: 'pull_request' },
  reopened: { action: 'reopened', type: 'pull_request' },
  merged: { action: 'closed', type: 'pull_request' },
  synchronize: { action: 'synchronized', type: 'pull_request_sync' },
  // Gitea's PullRequestReviewRequest notification (services/webhook/notifier.go): one per reviewer.
  review_requested: { action: 'review_requested', type: 'pull_request_review_request' },
  review_request_removed: { action: 'review_request_removed', type: 'pull_request_review_request' },
};

function pullRequestDeliveries(ctx: FormatContext, event: EventEnvelope): FormattedDelivery[] {
  const p = event.payload as MergeRequestIn;
  const mapped = PULL_REQUEST_ACTIONS[p.action];
  if (!mapped) return [];
  const changes = p.action === 'edited' && p.changes ? editedChanges(p.changes) : undefined;
  return [{
    suffix: '',
    event: mapped.type,
    payload: {
      action: mapped.action,
      number: p.merge_request.number,
      ...(changes ? { changes } : {}),
      pull_request: pullRequest(ctx, event.repository, p.merge_request, event.occurred_at, p.action === 'opened' ? p.sender.username : null),
      requested_reviewer: p.requested_reviewer ? giteaUser(ctx, p.requested_reviewer.username) : null,
      repository: giteaRepository(ctx, event.repository),
      sender: giteaUser(ctx, p.sender.username),
      commit_id: '',
      review: null,
    },
  }];
}

/** Gitea's `ChangesPayload`: `title` and `body` (githost's `description`). */
function editedChanges(changes: Record<string, { from: string | null }>) {
  return {
    ...(changes.title ? { title: { from: changes.title.from ?? '' } } : {}),
    ...(changes.description ? { body: { from: changes.description.from ?? '' } } : {}),
    // Gitea's `changes.ref`: the base branch a pull request was retargeted from.
    ...(changes.target_branch ? { ref: { from: changes.target_branch.from ?? '' } } : {}),
  };
}

/** githost's review state -> Gitea's event type (webhook_module HookEventPullRequestReview*). */
const REVIEW_TYPES: Record<ReviewIn['review']['state'], string> = {
  approved: 'pull_request_review_approved',
  changes_requested: 'pull_request_review_rejected',
  commented: 'pull_request_review_comment',
};

function reviewDeliveries(ctx: FormatContext, event: EventEnvelope): FormattedDelivery[] {
  const p = event.payload as ReviewIn;
  const type = REVIEW_TYPES[p.review.state];
  if (!type) return [];
  return [{
    suffix: '',
    event: type,
    payload: {
      action: 'reviewed',
      number: p.merge_request.number,
      pull_request: pullRequest(ctx, event.repository, p.merge_request, event.occurred_at, null),
      requested_reviewer: null,
      repository: giteaRepository(ctx, event.repository),
      sender: giteaUser(ctx, p.sender.username),
      commit_id: p.review.commit_sha,
      review: { type, content: p.review.body },
    },
  }];
}

function statusDeliveries(ctx: FormatContext, event: EventEnvelope): FormattedDelivery[] {
  const p = event.payload as StatusIn;
  const repo = event.repository;
  return [{
    suffix: '',
    event: 'status',
    payload: {
      commit: { id: p.sha, message: '', url: `${ctx.publicUrl}/${path(repo.owner, repo.name)}/-/commit/${p.sha}`, author: null, committer: null, verification: null, timestamp: null, added: null, removed: null, modified: null },
      context: p.context,
      created_at: event.occurred_at,
      description: p.description ?? '',
      id: giteaIdOf('status', statusKey(repo.id, p.sha, p.context, event.occurred_at)),
      repository: giteaRepository(ctx, repo),
      sender: giteaUser(ctx, p.sender.username),
      sha: p.sha,
      state: p.state,
      target_url: p.target_url ?? '',
      updated_at: event.occurred_at,
    },
  }];
}

/**
 * Gitea's `X-Gitea-Event` for an event type (webhook_module HookEventType.Event()): the review
 * types have short names of their own, `pull_request_sync` and `pull_request_review_request` are
 * `pull_request`.
 */
export function giteaEventOf(type: string): string {
  switch (type) {
    case 'pull_request_sync':
    case 'pull_request_review_request':
      return 'pull_request';
    case 'pull_request_review_approved':
      return 'pull_request_approved';
    case 'pull_request_review_rejected':
      return 'pull_request_rejected';
    case 'pull_request_review_comment':
      return 'pull_request_comment';
    default:
      return type;
  }
}

/** Gitea's headers (services/webhook/deliver.go): its own, Gogs' and GitHub's names for each. */
function giteaHeaders(req: DeliveryRequest): Record<string, string> {
  const event = giteaEventOf(req.event);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-gitea-delivery': req.deliveryId,
    'x-gitea-event': event,
    'x-gitea-event-type': req.event,
    'x-gogs-delivery': req.deliveryId,
    'x-gogs-event': event,
    'x-gogs-event-type': req.event,
    'x-github-delivery': req.deliveryId,
    'x-github-event': event,
    'x-github-event-type': req.event,
  };
  if (req.secret !== null) {
    const sha256 = createHmac('sha256', req.secret).update(req.body).digest('hex');
    headers['x-gitea-signature'] = sha256;
    headers['x-gogs-signature'] = sha256;
    headers['x-hub-signature-256'] = `sha256=${sha256}`;
    headers['x-hub-signature'] = `sha1=${createHmac('sha1', req.secret).update(req.body).digest('hex')}`;
  }
  return headers;
}

export const giteaFormat: WebhookFormat = {
  deliveries(event, ctx) {
    switch (event.kind) {
      case 'push':
        return pushDeliveries(ctx, event);
      case 'merge_request':
        return pullRequestDeliveries(ctx, event);
      case 'merge_request_review':
        return reviewDeliveries(ctx, event);
      case 'status':
        return statusDeliveries(ctx, event);
      default:
        // merge_request_comment: Gitea's issue_comment needs the issue it belongs to, which the event lacks.
        return [];
    }
  },
  // Gitea has no ping; its own test delivery is a push. The ping keeps githost's payload under Gitea's headers.
  ping: (payload) => ({ event: 'ping', payload }),
  headers: giteaHeaders,
};
