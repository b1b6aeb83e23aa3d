import { describe, expect, it } from '@jest/globals';
import type { DirectDelivery } from './ports.js';
import { pingWebhook } from './ping.js';

const HOOK = '0b7e2a52-8f0e-4a43-9a57-8f8a3d1c2b11';
const repo = { id: 'r1', owner: 'alice', name: 'demo' };

function ports() {
  const recorded: DirectDelivery[] = [];
  return {
    recorded,
    webhooks: { find: async (repoId: string, id: string) => (repoId === 'r1' && id === HOOK ? { id } : null) },
    deliveries: { recordDirect: async (d: DirectDelivery) => (recorded.push(d), 'd1') },
  };
}

describe('pingWebhook (CONTRACT §9)', () => {
  it('when the webhook belongs to the repository, then one ping delivery with the contract payload is recorded for it', async () => {
    const p = ports();
    expect(await pingWebhook(p, { repo, hookId: HOOK, sender: 'bob', requestId: 'req-1' })).toBe('d1');
    expect(p.recorded).toEqual([
      { webhookId: HOOK, event: 'ping', requestId: 'req-1', payload: { event: 'ping', hook_id: HOOK, repository: { owner: 'alice', name: 'demo', full_name: 'alice/demo' }, sender: { username: 'bob' } } },
    ]);
  });

  it('when the id is unknown, malformed or another repository’s, then not found and nothing recorded', async () => {
    const p = ports();
    for (const req of [{ repo, hookId: '1c1d8f6e-0000-4000-8000-000000000000' }, { repo, hookId: 'x' }, { repo: { ...repo, id: 'r2' }, hookId: HOOK }]) {
      await expect(pingWebhook(p, { ...req, sender: 'bob' })).rejects.toMatchObject({ kind: 'not_found', message: 'Webhook not found' });
    }
    expect(p.recorded).toEqual([]);
  });
});
