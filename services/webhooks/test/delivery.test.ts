import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startReceiver, type Answer, type Receiver } from '@githost/test-support';
import { randomUUID } from 'node:crypto';
import { createHook, deliveriesOf, deliveryDetail, harnessWithReceiver, hooksPath, settledDeliveries, startHarness, type Harness } from './support/service.js';
import { createServer } from '../src/index.js';

const pushPayload = (n = 1) => ({
  event: 'push',
  ref: 'refs/heads/main',
  before: '0'.repeat(40),
  after: 'a'.repeat(40),
  created: true,
  deleted: false,
  repository: { owner: 'alice', name: 'project', full_name: 'alice/project' },
  sender: { username: 'alice' },
  commits: [{ id: 'a'.repeat(40), message: `commit ${n}\n`, author: { name: 'Alice', email: 'alice@example.com' }, timestamp: '2026-01-01T00:00:00+00:00' }],
});

describe('webhook delivery to a real receiver', () => {
  let h: Harness;
  const receivers: Receiver[] = [];
  const receiver = async (secret: string | null = null, answer?: Answer) => {
    const r = await startReceiver({ secret, answer });
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('when an event arrives, then the receiver gets the payload with headers and a signature @octokit/webhooks-methods verifies', async () => {
    const r = await receiver('hook-secret');
    const hookId = await createHook(h, { url: r.url, secret: 'hook-secret' });
    const payload = pushPayload();
    await h.publish('push', payload);
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ event: 'push', status: 'delivered', attempts: 1, response_status: 200, error: null });
    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    expect(got.signatureValid).toBe(true);
    expect(JSON.parse(got.text)).toEqual(payload);
    expect(got.text).toBe(JSON.stringify(payload));
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('githost-hookshot/0.1.0');
    expect(got.headers['x-githost-event']).toBe('push');
    expect(got.headers['x-githost-delivery']).toBe(delivery!.id);
    expect(got.headers['webhook-id']).toBe(delivery!.id);
    expect(got.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const detail = await deliveryDetail(h, hookId, delivery!.id);
    expect(detail.payload).toEqual(payload);
    expect(detail.attempt_log).toEqual([expect.objectContaining({ number: 1, status: 'succeeded', response_status: 200, error: null, response_body: 'ok' })]);
    const metrics = await (await fetch(h.metricsUrl)).text();
    expect(metrics).toMatch(/^githost_webhooks_delivery_attempts_total\{outcome="delivered",service="webhooks"\} [1-9]/m);
  });

  it('when the webhook has no secret, then no signature header is sent', async () => {
    const r = await receiver();
    const hookId = await createHook(h, { url: r.url });
    await h.publish('push', pushPayload());
    await settledDeliveries(h, hookId);
    expect(r.received[0]!.headers['x-hub-signature-256']).toBeUndefined();
    expect(r.received[0]!.headers['webhook-signature']).toBeUndefined();
    expect(r.received[0]!.signatureValid).toBeNull();
  });

  it('when webhooks select different kinds, then each gets only the kinds it names (CONTRACT §5)', async () => {
    const repoId = randomUUID();
    const r = await receiver();
    const make = async (events: string) => (await h.call('POST', hooksPath, { url: `${r.url}?${events}`, events }, { repoId })).body as { id: string };
    const push = await make('push');
    const mr = await make('merge_request');
    const all = await make('*');
    await h.publish('merge_request', { event: 'merge_request', action: 'merged' }, { repoId });
    await settledDeliveries(h, mr.id, 1, repoId);
    await settledDeliveries(h, all.id, 1, repoId);
    expect(await deliveriesOf(h, push.id, repoId)).toEqual([]);
    expect((await deliveriesOf(h, mr.id, repoId)).map((d) => d.event)).toEqual(['merge_request']);
    expect(r.received.map((x) => x.headers['x-githost-event'])).toEqual(['merge_request', 'merge_request']);
  });

  it('when an event happened before the webhook existed, then it is not delivered (CONTRACT §9)', async () => {
    const r = await receiver();
    const hookId = await createHook(h, { url: r.url });
    await h.publish('push', pushPayload(), { occurredAt: new Date(Date.now() - 60_000).toISOString() });
    expect(await deliveriesOf(h, hookId)).toEqual([]);
  });

  it('when an event happens in the millisecond the webhook was created, then it is delivered; a millisecond earlier, not', async () => {
    const r = await receiver();
    const created = await h.call('POST', hooksPath, { url: r.url });
    const hook = created.body as { id: string; created_at: string };
    // created_at is kept in microseconds and shown in milliseconds, as an event's time is given.
    await h.publish('push', pushPayload(), { occurredAt: new Date(Date.parse(hook.created_at) - 1).toISOString() });
    expect(await deliveriesOf(h, hook.id)).toEqual([]);
    await h.publish('push', pushPayload(), { occurredAt: hook.created_at });
    expect((await settledDeliveries(h, hook.id)).map((d) => d.status)).toEqual(['delivered']);
  });

  it('when the same event comes twice, then one delivery is recorded', async () => {
    const r = await receiver();
    const hookId = await createHook(h, { url: r.url });
    const id = randomUUID();
    await h.publish('push', pushPayload(), { id });
    await h.publish('push', pushPayload(), { id });
    const list = await settledDeliveries(h, hookId);
    expect(list).toHaveLength(1);
    expect(r.received).toHaveLength(1);
  });

  it('when the receiver answers 500, 500, then 200, then it is delivered on attempt 3 with 3 attempts recorded', async () => {
    const r = await receiver('s', (n, res) => void res.writeHead(n < 2 ? 500 : 200).end(n < 2 ? 'boom' : 'fine'));
    const hookId = await createHook(h, { url: r.url, secret: 's' });
    await h.publish('push', pushPayload());
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, response_status: 200, error: null });
    const detail = await deliveryDetail(h, hookId, delivery!.id);
    expect(detail.attempt_log.map((a) => [a.number, a.status, a.response_status, a.error, a.response_body])).toEqual([
      [1, 'failed', 500, 'HTTP 500', 'boom'],
      [2, 'failed', 500, 'HTTP 500', 'boom'],
      [3, 'succeeded', 200, null, 'fine'],
    ]);
    // the same delivery id on every retry, so receivers can de-duplicate
    expect(new Set(r.received.map((x) => x.headers['x-githost-delivery']))).toEqual(new Set([delivery!.id]));
    expect(r.received.every((x) => x.signatureValid === true)).toBe(true);
  });

  it('when the receiver answers a 4xx other than 408/429, then it fails at once', async () => {
    const r = await receiver(null, (_n, res) => void res.writeHead(404).end('no such hook'));
    const hookId = await createHook(h, { url: r.url });
    await h.publish('push', pushPayload());
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, response_status: 404, error: 'HTTP 404' });
    expect(r.received).toHaveLength(1);
  });

  it('when the receiver redirects, then the redirect is not followed and the delivery fails', async () => {
    const target = await receiver();
    const r = await receiver(null, (_n, res) => void res.writeHead(302, { location: target.url }).end());
    const hookId = await createHook(h, { url: r.url });
    await h.publish('push', pushPayload());
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, response_status: 302, error: 'Redirect not followed (HTTP 302)' });
    expect(target.received).toHaveLength(0);
  });

  it('when the receiver sends an endless body, then only the first 4 KB is read and kept', async () => {
    const r = await receiver(null, (_n, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const hookId = await createHook(h, { url: r.url });
    await h.publish('push', pushPayload());
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, response_status: 200 });
    const detail = await deliveryDetail(h, hookId, delivery!.id);
    expect(detail.attempt_log[0]!.response_body).toBe('x'.repeat(4096));
  });

  it('when a failed delivery is redelivered, then it is sent again with the same id and a fresh budget', async () => {
    let answer = 410;
    const r = await receiver(null, (_n, res) => void res.writeHead(answer).end());
    const hookId = await createHook(h, { url: r.url });
    await h.publish('push', pushPayload());
    const [failed] = await settledDeliveries(h, hookId);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    answer = 200;
    const res = await h.call('POST', `${hooksPath}/${hookId}/deliveries/${failed!.id}/redeliver`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: failed!.id, status: 'pending' });
    const [done] = await settledDeliveries(h, hookId);
    expect(done).toMatchObject({ id: failed!.id, status: 'delivered', attempts: 2, response_status: 200 });
    expect(r.received.map((x) => x.headers['x-githost-delivery'])).toEqual([failed!.id, failed!.id]);
    expect(await h.call('GET', `${hooksPath}/${hookId}/deliveries/${randomUUID()}`)).toMatchObject({ status: 404, body: { error: 'Delivery not found' } });
  });

  it('when 20 deliveries in a row fail, then the webhook is set inactive and gets no more events', async () => {
    const repoId = randomUUID();
    const r = await receiver(null, (_n, res) => void res.writeHead(400).end());
    const hook = (await h.call('POST', hooksPath, { url: r.url }, { repoId })).body as { id: string };
    for (let i = 0; i < 20; i++) await h.publish('push', pushPayload(i), { repoId });
    const list = await settledDeliveries(h, hook.id, 20, repoId);
    expect(list.map((d) => d.status)).toEqual(list.map(() => 'failed'));
    const hooks = (await h.call('GET', hooksPath, undefined, { repoId })).body as { id: string; is_active: boolean }[];
    expect(hooks).toEqual([expect.objectContaining({ id: hook.id, is_active: false })]);
    await h.publish('push', pushPayload(21), { repoId });
    expect(await deliveriesOf(h, hook.id, repoId)).toHaveLength(20);
  });

  it('when deliveries are listed, then the newest comes first', async () => {
    const r = await receiver();
    const hookId = await createHook(h, { url: r.url, events: '*' });
    await h.publish('push', pushPayload());
    await h.publish('merge_request', { event: 'merge_request' });
    const list = await settledDeliveries(h, hookId, 2);
    expect(list.map((d) => d.event)).toEqual(['merge_request', 'push']);
  });
});

describe('webhook delivery limits', () => {
  let h: Harness;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    h = await startHarness({ env: { GITHOST_WEBHOOK_TIMEOUT_MS: '300', GITHOST_WEBHOOK_MAX_ATTEMPTS: '3' } });
  });
  afterAll(async () => {
    await h.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('when the receiver never answers, then each attempt times out and it fails after the configured attempts', async () => {
    const r = await startReceiver({ answer: () => undefined });
    receivers.push(r);
    const hookId = await createHook(h, { url: r.url });
    await h.publish('push', pushPayload());
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 3, response_status: null });
    const detail = await deliveryDetail(h, hookId, delivery!.id);
    expect(detail.attempt_log).toHaveLength(3);
    for (const a of detail.attempt_log) expect(a.error).toMatch(/Timeout awaiting 'request'/);
    expect(r.received).toHaveLength(3);
  });

  it('when the receiver answers 200 but never finishes the body, then the read stops at the timeout', async () => {
    const r = await startReceiver({
      answer: (_n, res) => {
        res.writeHead(200);
        res.write('partial');
      },
    });
    receivers.push(r);
    const hookId = await createHook(h, { url: r.url });
    await h.publish('push', pushPayload());
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, response_status: 200 });
    expect((await deliveryDetail(h, hookId, delivery!.id)).attempt_log[0]!.response_body).toBe('partial');
  });

  it('when the receiver cannot be reached, then the network error is recorded and retried', async () => {
    const r = await startReceiver();
    const url = r.url;
    await r.close();
    const hookId = await createHook(h, { url });
    await h.publish('push', pushPayload());
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 3, response_status: null });
    expect(delivery!.error).toMatch(/ECONNREFUSED/);
  });
});

describe('SSRF guard', () => {
  const started = harnessWithReceiver({ env: { GITHOST_WEBHOOK_ALLOW_PRIVATE: 'false' } });

  it('when the target is the literal 127.0.0.1, then the delivery fails at once with the reason and nothing is sent', async () => {
    const { harness: h, receiver: r } = started;
    const hookId = await createHook(h, { url: r.url });
    await h.publish('push', pushPayload());
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, response_status: null });
    expect(delivery!.error).toBe('Refused to deliver to 127.0.0.1: loopback address not allowed');
    expect(r.received).toHaveLength(0);
  });

  it('when the target name resolves to loopback at connect time, then it is refused', async () => {
    const { harness: h, receiver: r } = started;
    const hookId = await createHook(h, { url: r.url.replace('127.0.0.1', 'localhost') });
    await h.publish('push', pushPayload());
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1 });
    expect(delivery!.error).toMatch(/^Refused to deliver to localhost \((127\.0\.0\.1|::1)\): loopback address not allowed$/);
    expect(r.received).toHaveLength(0);
  });

  it('when the target is the metadata address, then it is refused without a connection', async () => {
    const { harness: h } = started;
    const hookId = await createHook(h, { url: 'http://169.254.169.254/latest/meta-data/' });
    await h.publish('push', pushPayload());
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, error: 'Refused to deliver to 169.254.169.254: metadata address not allowed' });
  });
});

describe('two replicas on one database', () => {
  // The default attempt timeout: a slow answer on a loaded machine must not read as a second send.
  const started = harnessWithReceiver({ env: { GITHOST_WEBHOOK_TIMEOUT_MS: '10000' } });

  it('when two replicas consume and deliver side by side, then every delivery is sent exactly once', async () => {
    const { harness: h, receiver: r } = started;
    const second = createServer(h.config, { bus: h.bus });
    await second.start();
    try {
      const hookId = await createHook(h, { url: r.url });
      await Promise.all(Array.from({ length: 40 }, (_, i) => h.publish('push', pushPayload(i))));
      const list = await settledDeliveries(h, hookId, 40);
      expect(list.map((d) => [d.status, d.attempts, d.error])).toEqual(list.map(() => ['delivered', 1, null]));
      const ids = r.received.map((x) => x.headers['x-githost-delivery']);
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
    } finally {
      await second.stop();
    }
  });
});

describe('webhook delivery on PGlite', () => {
  const started = harnessWithReceiver({ database: 'pglite' }, { secret: 'pglite-secret', answer: (n, res) => void res.writeHead(n === 0 ? 503 : 200).end() });

  it('when an event arrives on embedded Postgres, then it is recorded, retried and delivered signed', async () => {
    const { harness: h, receiver: r } = started;
    const hookId = await createHook(h, { url: r.url, secret: 'pglite-secret' });
    const payload = pushPayload();
    await h.publish('push', payload);
    const [delivery] = await settledDeliveries(h, hookId);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2, response_status: 200 });
    expect(r.received.map((x) => x.signatureValid)).toEqual([true, true]);
    expect(r.received[1]!.text).toBe(JSON.stringify(payload));
    const detail = await deliveryDetail(h, hookId, delivery!.id);
    expect(detail.attempt_log.map((a) => a.response_status)).toEqual([503, 200]);
  });
});

describe('a poison event', () => {
  const started = harnessWithReceiver();

  it('when an event cannot become deliveries, then its handler refuses it and later events still flow', async () => {
    const { harness: h, receiver: r } = started;
    const hookId = await createHook(h, { url: r.url });
    const poison = { id: randomUUID(), kind: 'push', occurred_at: 'not a time', repository: { id: h.repoId, owner: 'alice', name: 'project' }, payload: {} };
    await expect(h.bus.publish(poison)).rejects.toThrow('Unusable event: event has no valid occurred_at');
    await h.publish('push', pushPayload());
    const list = await settledDeliveries(h, hookId);
    expect(list).toMatchObject([{ status: 'delivered' }]);
  });
});
