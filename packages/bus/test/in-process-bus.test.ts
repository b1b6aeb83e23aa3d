import { describe, expect, it } from '@jest/globals';
import { InProcessEventBus, type EventEnvelope } from '../src/index.js';
import { makeEvent } from './events.js';

describe('in-process event bus', () => {
  it('when an event is published, then every queue bound to its kind gets an intact copy and others do not', async () => {
    const bus = new InProcessEventBus();
    const webhooks: EventEnvelope[] = [];
    const audit: EventEnvelope[] = [];
    const mrOnly: EventEnvelope[] = [];
    await bus.subscribe('webhooks', ['push', 'merge_request'], async (e) => void webhooks.push(e));
    await bus.subscribe('audit', ['push'], async (e) => void audit.push(e));
    await bus.subscribe('mr', ['merge_request'], async (e) => void mrOnly.push(e));
    const event = makeEvent(1);
    await bus.publish(event);
    expect(webhooks).toEqual([event]);
    expect(audit).toEqual([event]);
    expect(webhooks[0]).not.toBe(event);
    expect(mrOnly).toEqual([]);
  });

  it('when publish resolves, then every handler has already finished', async () => {
    const bus = new InProcessEventBus();
    const finished: number[] = [];
    await bus.subscribe('slow', ['push'], async (e) => {
      await new Promise((r) => setTimeout(r, 30));
      finished.push((e.payload as { n: number }).n);
    });
    await bus.publish(makeEvent(7));
    expect(finished).toEqual([7]);
  });

  it('when many publishes are issued at once and their handlers hold the loop, then the loop is given back between them and the queue gets them in order', async () => {
    const bus = new InProcessEventBus();
    const seen: Array<number | 'other work'> = [];
    await bus.subscribe('busy', ['push'], async (e) => {
      // Synchronous work, as a handler's copy and parsing is: the loop is held while it runs.
      const until = performance.now() + 3;
      while (performance.now() < until);
      seen.push((e.payload as { n: number }).n);
    });
    setImmediate(() => seen.push('other work'));
    // A relay's slice: every publish issued before any is awaited.
    await Promise.all(Array.from({ length: 20 }, (_, i) => bus.publish(makeEvent(i))));
    expect(seen.filter((s) => s !== 'other work')).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // The work waiting meanwhile ran before the last handler did, not after all of them.
    expect(seen.slice(0, -1)).toContain('other work');
  });

  it('when no queue is bound to the kind, then publish resolves and the event is dropped', async () => {
    const bus = new InProcessEventBus();
    const got: EventEnvelope[] = [];
    await bus.subscribe('q', ['merge_request'], async (e) => void got.push(e));
    await expect(bus.publish(makeEvent(1, 'push'))).resolves.toBeUndefined();
    expect(got).toEqual([]);
  });

  it('when one handler throws, then publish rejects and the retry reaches only the queue that failed', async () => {
    const bus = new InProcessEventBus();
    const good: number[] = [];
    let failures = 1;
    const flaky: number[] = [];
    await bus.subscribe('good', ['push'], async (e) => void good.push((e.payload as { n: number }).n));
    await bus.subscribe('flaky', ['push'], async (e) => {
      if (failures-- > 0) throw new Error('database down');
      flaky.push((e.payload as { n: number }).n);
    });
    const event = makeEvent(3);
    await expect(bus.publish(event)).rejects.toThrow('database down');
    await bus.publish(event);
    expect(good).toEqual([3]);
    expect(flaky).toEqual([3]);
  });

  it('when a handler keeps failing past maxRedeliveries, then the event is dead-lettered and publish resolves', async () => {
    const bus = new InProcessEventBus();
    let calls = 0;
    await bus.subscribe(
      'poison',
      ['push'],
      async () => {
        calls++;
        throw new Error('cannot handle');
      },
      { maxRedeliveries: 2 },
    );
    const event = makeEvent(9);
    await expect(bus.publish(event)).rejects.toThrow('cannot handle');
    await expect(bus.publish(event)).rejects.toThrow('cannot handle');
    await expect(bus.publish(event)).resolves.toBeUndefined();
    expect(calls).toBe(3);
    expect(bus.deadLetters('poison')).toEqual([event]);
  });

  it('when two subscriptions share a queue, then they compete and each event is handled once', async () => {
    const bus = new InProcessEventBus();
    const a: number[] = [];
    const b: number[] = [];
    await bus.subscribe('shared', ['push'], async (e) => void a.push((e.payload as { n: number }).n));
    await bus.subscribe('shared', ['push'], async (e) => void b.push((e.payload as { n: number }).n));
    for (let n = 1; n <= 4; n++) await bus.publish(makeEvent(n));
    expect([...a, ...b].sort()).toEqual([1, 2, 3, 4]);
    expect(a).toEqual([1, 3]);
    expect(b).toEqual([2, 4]);
  });

  it('when a queue\'s only subscription is closed, then it gets nothing more and a publish of a kind it took fails (the producer keeps the event) until a consumer is back; when the bus is closed, then publish fails as unavailable', async () => {
    const bus = new InProcessEventBus();
    const got: number[] = [];
    const sub = await bus.subscribe('q', ['push'], async (e) => void got.push((e.payload as { n: number }).n));
    await bus.publish(makeEvent(1));
    await sub.close();
    await expect(bus.publish(makeEvent(2))).rejects.toThrow(/Queue q has no consumer now/);
    expect(got).toEqual([1]);
    await bus.subscribe('q', ['push'], async (e) => void got.push((e.payload as { n: number }).n * 10));
    await bus.publish(makeEvent(2));
    expect(got).toEqual([1, 20]);
    expect(await bus.ready()).toBe(true);
    await bus.close();
    expect(await bus.ready()).toBe(false);
    await expect(bus.publish(makeEvent(3))).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('when the bus is held, then a publish waits for open() and reaches the queues subscribed before it; closed instead, the publish fails', async () => {
    const bus = new InProcessEventBus(undefined, { held: true });
    const got: number[] = [];
    let settled = false;
    const early = bus.publish(makeEvent(1)).then(() => void (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    await bus.subscribe('q', ['push'], async (e) => void got.push((e.payload as { n: number }).n));
    bus.open();
    await early;
    expect(got).toEqual([1]);

    const held = new InProcessEventBus(undefined, { held: true });
    const waiting = held.publish(makeEvent(2));
    await held.close();
    await expect(waiting).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
