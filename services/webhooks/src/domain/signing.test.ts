import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { verify } from '@octokit/webhooks-methods';
import { deliveryHeaders, hubSignature256, standardWebhookSignature } from './signing.js';

describe('delivery signing', () => {
  it('when signed with a secret, then @octokit/webhooks-methods verifies X-Hub-Signature-256', async () => {
    const body = JSON.stringify({ event: 'push', ref: 'refs/heads/main' });
    expect(await verify('s3cret', body, hubSignature256('s3cret', body))).toBe(true);
    expect(await verify('other', body, hubSignature256('s3cret', body))).toBe(false);
  });

  it('when signed the Standard Webhooks way, then it is v1 and base64 HMAC of id.timestamp.body', () => {
    const expected = createHmac('sha256', 'k').update('msg_1.1700000000.{}').digest('base64');
    expect(standardWebhookSignature('k', 'msg_1', 1700000000, '{}')).toBe(`v1,${expected}`);
  });

  it('when the webhook has a secret, then both signatures are sent with the fixed headers', () => {
    const h = deliveryHeaders({ deliveryId: 'd1', event: 'push', body: '{}', secret: 'k', timestamp: 5 });
    expect(h).toEqual({
      'content-type': 'application/json',
      'user-agent': 'githost-hookshot/0.1.0',
      'x-githost-event': 'push',
      'x-githost-delivery': 'd1',
      'webhook-id': 'd1',
      'webhook-timestamp': '5',
      'x-hub-signature-256': hubSignature256('k', '{}'),
      'webhook-signature': standardWebhookSignature('k', 'd1', 5, '{}'),
    });
  });

  it('when the webhook has no secret, then no signature header is sent', () => {
    const h = deliveryHeaders({ deliveryId: 'd1', event: 'merge_request', body: '{}', secret: null, timestamp: 5 });
    expect(h['x-hub-signature-256']).toBeUndefined();
    expect(h['webhook-signature']).toBeUndefined();
    expect(h['x-githost-event']).toBe('merge_request');
  });
});
