import { describe, expect, it } from '@jest/globals';
import type { EventEnvelope } from '@githost/bus';
import { slackEscape, slackFormat, slackLink } from './slack.js';

const ctx = { publicUrl: 'https://git.example.com' };
const repository = { id: 'r1', owner: 'alice', name: 'demo' };
const envelope = (kind: string, payload: unknown): EventEnvelope => ({ id: 'ev', kind, occurred_at: '2026-11-29T05:00:00.000Z', repository, payload });
const ZERO = '0'.repeat(40);
const sha = (c: string) => c.repeat(40);

function push(over: Record<string, unknown> = {}) {
  return envelope('push', {
    event: 'push', ref: 'refs/heads/main', before: sha('a'), after: sha('c'), created: false, deleted: false, forced: false,
    repository: { owner: 'alice', name: 'demo', full_name: 'alice/demo' }, sender: { username: 'bob' },
    commits: [
      { id: sha('b'), message: 'Fix <b> & co\n\nbody', author: { name: 'Bob' }, timestamp: '' },
      { id: sha('c'), message: 'Second', author: { name: 'Bob' }, timestamp: '' },
    ],
    ...over,
  });
}

const textOf = (e: EventEnvelope) => (slackFormat.deliveries(e, ctx)[0]?.payload as { text: string } | undefined)?.text;

describe('slack format (incoming-webhook `text`)', () => {
  it('when text has &, < or >, then they are escaped; a link is <url|label>', () => {
    expect(slackEscape('a < b & c > d')).toBe('a &lt; b &amp; c &gt; d');
    expect(slackLink('https://x/y', 'a|b<c')).toBe('<https://x/y|ab&lt;c>');
  });

  it('when a branch moves, then one line naming repo, branch, count and pusher, then each commit newest first', () => {
    expect(slackFormat.deliveries(push(), ctx).map((d) => [d.suffix, d.event, Object.keys(d.payload as object)])).toEqual([['', 'push', ['text']]]);
    expect(textOf(push())).toBe(
      [
        '[<https://git.example.com/alice/demo|alice/demo>:<https://git.example.com/alice/demo/-/tree/main|main>] 2 new commits pushed by bob',
        `<https://git.example.com/alice/demo/-/commit/${sha('c')}|cccccccccc>: Second - Bob`,
        `<https://git.example.com/alice/demo/-/commit/${sha('b')}|bbbbbbbbbb>: Fix &lt;b&gt; &amp; co - Bob`,
      ].join('\n'),
    );
  });

  it('when force-pushed, created without commits or deleted, then it says so', () => {
    expect(textOf(push({ forced: true, commits: [{ id: sha('c'), message: 'x', author: { name: 'B' } }] }))).toContain('1 new commit force-pushed by bob');
    expect(textOf(push({ before: ZERO, created: true, commits: [] }))).toBe('[<https://git.example.com/alice/demo|alice/demo>] branch <https://git.example.com/alice/demo/-/tree/main|main> created by bob');
    expect(textOf(push({ ref: 'refs/tags/v1', after: ZERO, deleted: true, commits: [] }))).toBe('[<https://git.example.com/alice/demo|alice/demo>] tag v1 deleted by bob');
  });

  it.each([
    ['opened', 'opened'],
    ['edited', 'edited'],
    ['closed', 'closed'],
    ['reopened', 'reopened'],
    ['synchronize', 'updated'],
    ['merged', 'merged'],
  ])('when a merge request is %s, then "Merge request %s" with a link to it', (action, verb) => {
    const e = envelope('merge_request', { event: 'merge_request', action, repository: {}, sender: { username: 'carol' }, merge_request: { number: 3, title: 'Add <x>', state: 'open' } });
    expect(textOf(e)).toBe(`[<https://git.example.com/alice/demo|alice/demo>] Merge request ${verb}: <https://git.example.com/alice/demo/-/merge-requests/3|#3 Add &lt;x&gt;> by carol`);
  });

  it('when the event is a review, comment or status, then nothing is sent to a slack webhook', () => {
    for (const kind of ['merge_request_review', 'merge_request_comment', 'status']) expect(slackFormat.deliveries(envelope(kind, { sender: { username: 'x' } }), ctx)).toEqual([]);
  });

  it('when pinged, then a chat line, not the JSON ping', () => {
    const ping = slackFormat.ping({ event: 'ping', hook_id: 'h', repository: { owner: 'alice', name: 'demo', full_name: 'alice/demo' }, sender: { username: 'bob' } }, ctx);
    expect(ping).toEqual({ event: 'ping', payload: { text: '[<https://git.example.com/alice/demo|alice/demo>] Ping from githost, sent by bob' } });
  });
});
