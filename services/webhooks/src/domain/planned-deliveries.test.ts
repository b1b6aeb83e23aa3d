import { describe, expect, it } from '@jest/globals';
import type { EventEnvelope } from '@githost/bus';
import { deliveryIdFor } from './delivery-id.js';
import { plannedDeliveries } from './planned-deliveries.js';

const ctx = { publicUrl: 'http://localhost:3000' };
const HOOK = '0b7e2a52-8f0e-4a43-9a57-8f8a3d1c2b11';
const created: EventEnvelope = {
  id: 'ev-9',
  kind: 'push',
  occurred_at: '2026-11-29T05:00:00.000Z',
  repository: { id: 'r1', owner: 'alice', name: 'demo' },
  payload: { event: 'push', ref: 'refs/heads/topic', before: '0'.repeat(40), after: 'c'.repeat(40), created: true, deleted: false, forced: false, repository: {}, sender: { username: 'bob' }, commits: [] },
};

describe('plannedDeliveries', () => {
  it('when a githost webhook selects the event, then one delivery under the id of (webhook, event id), payload untouched', () => {
    expect(plannedDeliveries({ id: HOOK, events: 'push', type: 'githost' }, created, ctx)).toEqual([
      { id: deliveryIdFor(HOOK, 'ev-9'), eventId: 'ev-9', event: 'push', payload: created.payload },
    ]);
  });

  it('when a gitea webhook gets a branch creation, then create and push, each with an id of its own, stable across calls', () => {
    const planned = plannedDeliveries({ id: HOOK, events: 'push', type: 'gitea' }, created, ctx);
    expect(planned.map((p) => [p.eventId, p.event, p.id])).toEqual([
      ['ev-9:create', 'create', deliveryIdFor(HOOK, 'ev-9:create')],
      ['ev-9', 'push', deliveryIdFor(HOOK, 'ev-9')],
    ]);
    expect(plannedDeliveries({ id: HOOK, events: 'push', type: 'gitea' }, created, ctx)).toEqual(planned);
  });

  it('when the webhook does not select the event, then nothing, whatever its type', () => {
    for (const type of ['githost', 'gitea', 'slack'] as const) expect(plannedDeliveries({ id: HOOK, events: 'status', type }, created, ctx)).toEqual([]);
  });
});
