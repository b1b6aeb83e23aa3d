import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, sample, startReceiver, type Receiver } from '@githost/test-support';
import { randomUUID } from 'node:crypto';
import { setLogSink } from '@githost/logging';
import { createHook, deliveriesOf, startHarness, type Harness } from './support/service.js';

describe('webhooks observability', () => {
  const lines: Record<string, unknown>[] = [];
  let h: Harness;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    setLogSink({ destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }, level: 'info' });
    // A failed first attempt stays pending: its retry is due long after this test.
    h = await startHarness({ env: { GITHOST_WEBHOOK_RETRY_BASE_MS: '600000' } });
  });
  afterAll(async () => {
    setLogSink(undefined);
    await h.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('when an event with a request id is delivered, then logs carry the id, the queue lag is observed and pending deliveries are counted', async () => {
    const good = await startReceiver();
    const bad = await startReceiver({ answer: (_n, res) => void res.writeHead(500).end('no') });
    receivers.push(good, bad);
    const goodHook = await createHook(h, { url: good.url });
    const badHook = await createHook(h, { url: bad.url });
    const requestId = `req-${randomUUID()}`;
    await h.bus.publish({
      id: randomUUID(),
      kind: 'push',
      occurred_at: new Date().toISOString(),
      repository: { id: h.repoId, owner: 'alice', name: 'project' },
      payload: { event: 'push', ref: 'refs/heads/main' },
      request_id: requestId,
    });
    await eventually(async () => ((await deliveriesOf(h, goodHook))[0]?.status === 'delivered' ? true : undefined));
    await eventually(async () => ((await deliveriesOf(h, badHook))[0]?.attempts === 1 ? true : undefined));

    const metrics = await (await fetch(h.metricsUrl)).text();
    expect(sample(metrics, 'githost_webhooks_event_lag_seconds_count', { service: 'webhooks' })).toBe(1);
    expect(sample(metrics, 'githost_webhooks_deliveries_pending', { service: 'webhooks' })).toBe(1);

    const mine = lines.filter((l) => l.request_id === requestId);
    expect(mine.filter((l) => l.msg === 'event recorded').map((l) => [l.service, l.recorded])).toEqual([['webhooks', 2]]);
    const attempts = mine.filter((l) => l.msg === 'webhook delivery attempt').map((l) => [l.webhook_id, l.outcome]);
    expect(attempts).toEqual(expect.arrayContaining([[goodHook, 'delivered'], [badHook, 'retry']]));
    expect(attempts).toHaveLength(2);
  });
});
