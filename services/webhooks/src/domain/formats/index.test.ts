import { describe, expect, it } from '@jest/globals';
import type { EventEnvelope } from '@githost/bus';
import { deliveryHeaders } from '../signing.js';
import { parseNewWebhook } from '../webhook-input.js';
import { formatOf, parseWebhookType } from './index.js';

describe('parseWebhookType', () => {
  it('when omitted or null, then githost; a known name is kept', () => {
    expect(parseWebhookType(undefined)).toBe('githost');
    expect(parseWebhookType(null)).toBe('githost');
    for (const t of ['githost', 'gitea', 'slack']) expect(parseWebhookType(t)).toBe(t);
  });

  it('when unknown or not a string, then a validation error naming it', () => {
    expect(() => parseWebhookType('gogs')).toThrow(expect.objectContaining({ kind: 'validation', message: 'Unknown webhook type: gogs (one of githost, gitea, slack)' }));
    expect(() => parseWebhookType(3)).toThrow(expect.objectContaining({ kind: 'validation', message: 'type must be a string' }));
  });
});

describe('githost format', () => {
  it('when an event comes, then its payload object unchanged under its kind, and CONTRACT §7 headers', () => {
    const payload = { event: 'push', ref: 'refs/heads/main' };
    const event: EventEnvelope = { id: 'e', kind: 'push', occurred_at: '', repository: { id: 'r', owner: 'o', name: 'n' }, payload };
    const [d] = formatOf('githost').deliveries(event, { publicUrl: 'http://x' });
    expect(d).toEqual({ suffix: '', event: 'push', payload });
    expect(d!.payload).toBe(payload);
    expect(formatOf('githost').headers).toBe(deliveryHeaders);
  });
});

describe('parseNewWebhook with a type', () => {
  it('when `type` is given, then it is kept; when omitted, the result has no type (githost, stored as such)', () => {
    expect(parseNewWebhook({ url: 'https://example.com/h', type: 'gitea' })).toEqual({ url: 'https://example.com/h', secret: null, events: 'push', type: 'gitea' });
    expect('type' in parseNewWebhook({ url: 'https://example.com/h' })).toBe(false);
  });

  it('when url and type are both bad, then the url is reported first (seed §4 webhooks rule 2)', () => {
    expect(() => parseNewWebhook({ type: 'nope' })).toThrow(expect.objectContaining({ message: 'URL is required' }));
    expect(() => parseNewWebhook({ url: 'https://example.com/h', type: 'nope' })).toThrow(expect.objectContaining({ message: 'Unknown webhook type: nope (one of githost, gitea, slack)' }));
  });
});
