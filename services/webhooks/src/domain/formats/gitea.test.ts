import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import type { EventEnvelope } from '@githost/bus';
import { giteaEventOf, giteaFormat } from './gitea.js';
import { giteaIdOf } from '@githost/gitea-ids';

const ctx = { publicUrl: 'https://git.example.com' };
const REPO = { id: '7f0c1a9e-2b1d-4c57-9a0e-3d2f1b8c4e61', owner: 'alice', name: 'demo' };
const ZERO = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

function envelope(kind: string, payload: unknown): EventEnvelope {
  return { id: 'ev-1', kind, occurred_at: '2026-11-29T05:00:00.000Z', repository: REPO, payload };
}

const repoPayload = { owner: 'alice', name: 'demo', full_name: 'alice/demo' };

function push(over: Record<string, unknown> = {}) {
  return envelope('push', {
    event: 'push',
    ref: 'refs/heads/main',
    before: A,
    after: C,
    created: false,
    deleted: false,
    forced: false,
    repository: repoPayload,
    sender: { username: 'bob' },
    commits: [
      { id: B, message: 'first\n\nbody', author: { name: 'Bob', email: 'bob@example.com' }, timestamp: '2026-11-29T04:00:00+01:00' },
      { id: C, message: 'second', author: { name: 'Bob', email: 'bob@example.com' }, timestamp: '2026-11-29T04:10:00+01:00' },
    ],
    ...over,
  });
}

function mr(action: string, over: Record<string, unknown> = {}, fields: Record<string, unknown> = {}) {
  return envelope('merge_request', {
    event: 'merge_request',
    action,
    repository: repoPayload,
    sender: { username: 'carol' },
    merge_request: { number: 3, title: 'Add x', state: 'open', description: 'Why x', source_branch: 'feature', target_branch: 'main', source_sha: B, head_sha: C, ...fields },
    ...over,
  });
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('gitea format: repository and user (modules/structs repo.go, user.go)', () => {
  it('when any event is formatted, then repository carries the fields Woodpecker reads, with a stable integer id', () => {
    const [d] = giteaFormat.deliveries(push(), ctx);
    const repo = (d!.payload as Json).repository;
    expect(repo).toMatchObject({
      id: giteaIdOf('repository', REPO.id),
      name: 'demo',
      full_name: 'alice/demo',
      owner: { id: giteaIdOf('user', 'alice'), login: 'alice', username: 'alice', html_url: 'https://git.example.com/alice' },
      html_url: 'https://git.example.com/alice/demo',
      clone_url: 'https://git.example.com/alice/demo.git',
      ssh_url: '',
      private: false,
      default_branch: '',
    });
    expect(Number.isSafeInteger(repo.id) && repo.id > 0).toBe(true);
  });

  it('when the same object is named twice, then its id is the same; different kinds or keys differ', () => {
    expect(giteaIdOf('user', 'alice')).toBe(giteaIdOf('user', 'alice'));
    expect(giteaIdOf('user', 'alice')).not.toBe(giteaIdOf('user', 'bob'));
    expect(giteaIdOf('user', 'x')).not.toBe(giteaIdOf('repository', 'x'));
  });
});

describe('gitea format: push (PushPayload)', () => {
  it('when a branch moves, then one push with ref, before, after, compare_url, commits newest first, head_commit, pusher and sender', () => {
    const out = giteaFormat.deliveries(push(), ctx);
    expect(out.map((d) => [d.suffix, d.event])).toEqual([['', 'push']]);
    const p = out[0]!.payload as Json;
    expect(Object.keys(p)).toEqual(['ref', 'before', 'after', 'compare_url', 'commits', 'total_commits', 'head_commit', 'repository', 'pusher', 'sender']);
    expect(p).toMatchObject({ ref: 'refs/heads/main', before: A, after: C, total_commits: 2, compare_url: `https://git.example.com/alice/demo/-/compare?base=${A}&head=${C}` });
    expect(p.commits.map((c: Json) => c.id)).toEqual([C, B]);
    expect(p.commits[1]).toEqual({
      id: B,
      message: 'first\n\nbody',
      url: `https://git.example.com/alice/demo/-/commit/${B}`,
      author: { name: 'Bob', email: 'bob@example.com', username: '' },
      committer: { name: 'Bob', email: 'bob@example.com', username: '' },
      verification: null,
      timestamp: '2026-11-29T04:00:00+01:00',
      added: [],
      removed: [],
      modified: [],
    });
    expect(p.head_commit.id).toBe(C);
    expect(p.pusher).toMatchObject({ login: 'bob', username: 'bob', id: giteaIdOf('user', 'bob') });
    expect(p.sender).toEqual(p.pusher);
  });

  it('when a branch is created, then `create` (sha, ref without prefix, ref_type branch) and then `push`', () => {
    const out = giteaFormat.deliveries(push({ before: ZERO, created: true }), ctx);
    expect(out.map((d) => [d.suffix, d.event])).toEqual([[':create', 'create'], ['', 'push']]);
    expect(out[0]!.payload).toMatchObject({ sha: C, ref: 'main', ref_type: 'branch', repository: { full_name: 'alice/demo' }, sender: { login: 'bob' } });
    expect(Object.keys(out[0]!.payload as Json)).toEqual(['sha', 'ref', 'ref_type', 'repository', 'sender']);
    expect((out[1]!.payload as Json).compare_url).toBe('');
  });

  it('when a tag is created, then ref_type is tag', () => {
    const out = giteaFormat.deliveries(push({ ref: 'refs/tags/v1.0', before: ZERO, created: true, commits: [] }), ctx);
    expect(out[0]!.payload).toMatchObject({ ref: 'v1.0', ref_type: 'tag' });
    expect((out[1]!.payload as Json).head_commit).toBeNull();
  });

  it('when a branch is deleted, then only `delete` (ref, ref_type, pusher_type user), as Gitea sends no push for it', () => {
    const out = giteaFormat.deliveries(push({ after: ZERO, deleted: true, commits: [], ref: 'refs/heads/old/topic' }), ctx);
    expect(out.map((d) => [d.suffix, d.event])).toEqual([[':delete', 'delete']]);
    expect(out[0]!.payload).toMatchObject({ ref: 'old/topic', ref_type: 'branch', pusher_type: 'user', sender: { login: 'bob' } });
  });
});

describe('gitea format: pull_request (PullRequestPayload)', () => {
  it('when opened, then action opened, number, and pull_request with head/base ref, sha, repo, user = the opener', () => {
    const [d] = giteaFormat.deliveries(mr('opened'), ctx);
    expect(d!.event).toBe('pull_request');
    const p = d!.payload as Json;
    expect(p).toMatchObject({ action: 'opened', number: 3, sender: { login: 'carol' }, repository: { full_name: 'alice/demo' } });
    expect(p.pull_request).toMatchObject({
      id: giteaIdOf('pull_request', `${REPO.id}#3`),
      number: 3,
      title: 'Add x',
      body: 'Why x',
      state: 'open',
      merged: false,
      html_url: 'https://git.example.com/alice/demo/-/merge-requests/3',
      head: { ref: 'feature', sha: C, repo: { full_name: 'alice/demo' } },
      base: { ref: 'main', repo: { full_name: 'alice/demo' } },
      user: { login: 'carol', username: 'carol' },
      labels: [],
    });
  });

  it('when synchronized, then action synchronized and event type pull_request_sync (X-Gitea-Event pull_request)', () => {
    const [d] = giteaFormat.deliveries(mr('synchronize', { before: B, after: C }), ctx);
    expect(d!.event).toBe('pull_request_sync');
    expect(giteaEventOf(d!.event)).toBe('pull_request');
    expect((d!.payload as Json).action).toBe('synchronized');
    expect((d!.payload as Json).pull_request.user).toMatchObject({ id: 0, login: '' });
  });

  it('when a review is requested or withdrawn, then action review_requested / review_request_removed with requested_reviewer, type pull_request_review_request (X-Gitea-Event pull_request)', () => {
    for (const [action, expected] of [['review_requested', 'review_requested'], ['review_request_removed', 'review_request_removed']] as const) {
      const [d] = giteaFormat.deliveries(mr(action, { requested_reviewer: { username: 'rita' } }), ctx);
      expect([d!.event, giteaEventOf(d!.event)]).toEqual(['pull_request_review_request', 'pull_request']);
      expect(d!.payload as Json).toMatchObject({
        action: expected,
        number: 3,
        requested_reviewer: { id: giteaIdOf('user', 'rita'), login: 'rita', username: 'rita' },
        sender: { login: 'carol' },
        pull_request: { number: 3, state: 'open', title: 'Add x' },
      });
    }
  });

  it('when edited, then Gitea changes {title, body} with `from`', () => {
    const [d] = giteaFormat.deliveries(mr('edited', { changes: { title: { from: 'Old' }, description: { from: null } } }), ctx);
    expect((d!.payload as Json).changes).toEqual({ title: { from: 'Old' }, body: { from: '' } });
  });

  it('when retargeted, then Gitea changes.ref with the old base', () => {
    const [d] = giteaFormat.deliveries(mr('edited', { changes: { target_branch: { from: 'main' } } }), ctx);
    expect((d!.payload as Json).changes).toEqual({ ref: { from: 'main' } });
  });

  it('when closed or reopened, then that action with state closed / open', () => {
    const [closed] = giteaFormat.deliveries(mr('closed', {}, { state: 'closed' }), ctx);
    expect(closed!.payload).toMatchObject({ action: 'closed', pull_request: { state: 'closed', merged: false } });
    const [reopened] = giteaFormat.deliveries(mr('reopened'), ctx);
    expect(reopened!.payload).toMatchObject({ action: 'reopened', pull_request: { state: 'open' } });
  });

  it('when merged (the seed payload), then action closed with pull_request.merged true', () => {
    const merged = envelope('merge_request', { event: 'merge_request', action: 'merged', repository: repoPayload, sender: { username: 'alice' }, merge_request: { number: 3, title: 'Add x', state: 'merged' } });
    const [d] = giteaFormat.deliveries(merged, ctx);
    expect(d!.event).toBe('pull_request');
    expect(d!.payload).toMatchObject({ action: 'closed', number: 3, pull_request: { merged: true, state: 'closed', merged_at: '2026-11-29T05:00:00.000Z' } });
  });
});

describe('gitea format: reviews (pull_request_review_*)', () => {
  const review = (state: string) =>
    envelope('merge_request_review', { ...(mr('opened').payload as Json), event: 'merge_request_review', action: 'submitted', review: { id: 'r1', state, body: 'LGTM', commit_sha: C } });

  it.each([
    ['approved', 'pull_request_review_approved', 'pull_request_approved'],
    ['changes_requested', 'pull_request_review_rejected', 'pull_request_rejected'],
    ['commented', 'pull_request_review_comment', 'pull_request_comment'],
  ])('when a review is %s, then event type %s (X-Gitea-Event %s), action reviewed, review {type, content}', (state, type, event) => {
    const [d] = giteaFormat.deliveries(review(state), ctx);
    expect(d!.event).toBe(type);
    expect(giteaEventOf(type)).toBe(event);
    expect(d!.payload).toMatchObject({ action: 'reviewed', number: 3, commit_id: C, review: { type, content: 'LGTM' }, sender: { login: 'carol' } });
  });
});

describe('gitea format: status (CommitStatusPayload)', () => {
  it('when a status is posted, then sha, state, context, description, target_url, commit, id and times', () => {
    const [d] = giteaFormat.deliveries(envelope('status', { event: 'status', sha: C, state: 'success', context: 'ci/build', description: null, target_url: 'https://ci.example.com/1', repository: repoPayload, sender: { username: 'ci' } }), ctx);
    expect(d!.event).toBe('status');
    const p = d!.payload as Json;
    expect(p).toMatchObject({ sha: C, state: 'success', context: 'ci/build', description: '', target_url: 'https://ci.example.com/1', created_at: '2026-11-29T05:00:00.000Z', commit: { id: C }, sender: { login: 'ci' } });
    expect(Number.isSafeInteger(p.id)).toBe(true);
  });
});

describe('gitea format: what it does not send', () => {
  it('when a merge request comment or an unknown action comes, then nothing', () => {
    expect(giteaFormat.deliveries(envelope('merge_request_comment', mr('opened').payload), ctx)).toEqual([]);
    expect(giteaFormat.deliveries(mr('labelled'), ctx)).toEqual([]);
  });
});

describe('gitea format: headers (services/webhook/deliver.go)', () => {
  const body = '{"ref":"refs/heads/main"}';
  it('when the webhook has a secret, then X-Gitea-Signature is the hex HMAC-SHA256 of the body, also as X-Hub-Signature-256', () => {
    const h = giteaFormat.headers({ deliveryId: 'd-1', event: 'pull_request_review_approved', body, secret: 's3cret', timestamp: 1 });
    const hex = createHmac('sha256', 's3cret').update(body).digest('hex');
    expect(h).toMatchObject({
      'content-type': 'application/json',
      'x-gitea-delivery': 'd-1',
      'x-gitea-event': 'pull_request_approved',
      'x-gitea-event-type': 'pull_request_review_approved',
      'x-gitea-signature': hex,
      'x-hub-signature-256': `sha256=${hex}`,
      'x-github-event': 'pull_request_approved',
      'x-github-delivery': 'd-1',
    });
    expect(h['x-githost-event']).toBeUndefined();
  });

  it('when there is no secret, then no signature header', () => {
    const h = giteaFormat.headers({ deliveryId: 'd-1', event: 'push', body, secret: null, timestamp: 1 });
    expect(Object.keys(h).filter((k) => k.includes('signature'))).toEqual([]);
    expect(h['x-gitea-event']).toBe('push');
  });
});
