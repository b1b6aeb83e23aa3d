import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileJournal, InProcessEventBus, startJournalRelay, type EventEnvelope } from '../src/index.js';
import { batchJson } from '../src/file-journal.js';
import { LoopBudget } from '@githost/runtime';
import { waitFor } from '@githost/test-support';
import { makeEvent } from './events.js';

describe('file journal', () => {
  let dir: string;
  beforeEach(() => {
    dir = path.join(mkdtempSync(path.join(tmpdir(), 'bus-journal-')), 'journal');
  });
  afterEach(() => rmSync(path.dirname(dir), { recursive: true, force: true }));

  it('when events are appended and the process "restarts", then a new journal on the directory sees them oldest first', async () => {
    const events = [makeEvent(1), makeEvent(2), makeEvent(3)];
    const journal = new FileJournal(dir);
    for (const e of events) await journal.append(e);
    // A crash mid-append leaves a temp file: it is not an event and is cleaned up.
    writeFileSync(path.join(dir, '.tmp-123-abc'), '{"half":');

    const restarted = new FileJournal(dir);
    expect(await restarted.pending()).toEqual(events);
    expect(await restarted.pending(2)).toEqual(events.slice(0, 2));
    expect(await restarted.size()).toBe(3);
    expect(readdirSync(dir).filter((n) => n.startsWith('.tmp-'))).toEqual([]);

    await restarted.append(makeEvent(4));
    await restarted.remove(events[1]!.id);
    await restarted.remove('00000000-0000-0000-0000-000000000000');
    expect((await new FileJournal(dir).pending()).map((e) => (e.payload as { n: number }).n)).toEqual([1, 3, 4]);
  });

  it('when several events are removed at once, then exactly those go and the rest stay in order', async () => {
    const journal = new FileJournal(dir);
    const events = [1, 2, 3, 4, 5].map((n) => makeEvent(n));
    for (const e of events) await journal.append(e);
    await journal.removeMany([events[0]!.id, events[3]!.id, '00000000-0000-0000-0000-000000000000']);
    await journal.removeMany([]);
    expect((await new FileJournal(dir).pending()).map((e) => (e.payload as { n: number }).n)).toEqual([2, 3, 5]);
    await expect(journal.removeMany([events[1]!.id, '../x'])).rejects.toMatchObject({ kind: 'validation' });
    expect(await journal.size()).toBe(3);
  });

  it('when events are appended together, then they take one file and come back in order after a "restart"', async () => {
    const journal = new FileJournal(dir);
    const together = [1, 2, 3, 4].map((n) => makeEvent(n));
    await journal.append(makeEvent(0));
    await journal.appendMany(together);
    await journal.append(makeEvent(5));
    expect(readdirSync(dir).filter((n) => !n.startsWith('.'))).toHaveLength(3);
    const restarted = new FileJournal(dir);
    expect((await restarted.pending()).map((e) => (e.payload as { n: number }).n)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await restarted.size()).toBe(6);
    // a file is returned whole, so a limit inside a batch still gives the whole batch
    expect((await restarted.pending(2)).map((e) => (e.payload as { n: number }).n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('when more events are appended together than a file holds, then they take several files, in order, and a discarded append leaves none', async () => {
    const journal = new FileJournal(dir, { eventsPerFile: 3 });
    const events = Array.from({ length: 8 }, (_, n) => makeEvent(n));
    const dropped = await journal.stageMany([makeEvent(100), makeEvent(101), makeEvent(102), makeEvent(103)]);
    await dropped.discard();
    await journal.appendMany(events);
    // 3 + 3 + 2 events: three files, nothing left under a temp name
    expect(readdirSync(dir).sort()).toEqual([expect.stringMatching(/\.batch\.json$/), expect.stringMatching(/\.batch\.json$/), expect.stringMatching(/\.batch\.json$/)]);
    const restarted = new FileJournal(dir);
    expect((await restarted.pending()).map((e) => (e.payload as { n: number }).n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect((await restarted.pending(4)).map((e) => (e.payload as { n: number }).n)).toEqual([0, 1, 2, 3, 4, 5]);
    await restarted.removeMany(events.slice(0, 4).map((e) => e.id));
    expect((await new FileJournal(dir).pending()).map((e) => (e.payload as { n: number }).n)).toEqual([4, 5, 6, 7]);
  });

  it('when a batch is turned into JSON an event at a time, then the text is JSON.stringify of the batch and the loop was given back in between', async () => {
    const events = [makeEvent(1), makeEvent(2), makeEvent(3)];
    const seen: string[] = [];
    setImmediate(() => seen.push('other work'));
    // A spent budget at every event: the loop is given back after each.
    const text = await batchJson(events, new LoopBudget(0));
    seen.push('json');
    expect(text).toBe(JSON.stringify(events));
    expect(seen).toEqual(['other work', 'json']);
  });

  it('when an append is staged, then it is no event until committed; a discarded one never becomes one, nor one a "restart" finds staged', async () => {
    const journal = new FileJournal(dir);
    const events = [1, 2, 3].map((n) => makeEvent(n));
    const staged = await journal.stageMany([events[0]!]);
    const batch = await journal.stageMany([events[1]!, events[2]!]);
    const dropped = await journal.stageMany([makeEvent(4)]);
    const left = await journal.stageMany([makeEvent(5)]);
    expect(await journal.size()).toBe(0);
    await staged.commit();
    await batch.commit();
    await dropped.discard();
    expect((await journal.pending()).map((e) => (e.payload as { n: number }).n)).toEqual([1, 2, 3]);
    void left; // never committed: the process "died" here
    const restarted = new FileJournal(dir);
    expect((await restarted.pending()).map((e) => (e.payload as { n: number }).n)).toEqual([1, 2, 3]);
    expect(readdirSync(dir).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    await restarted.removeMany([events[1]!.id]);
    expect((await new FileJournal(dir).pending()).map((e) => (e.payload as { n: number }).n)).toEqual([1, 3]);
  });

  it('when part of a batch is removed, then the rest stays in its place; when all of it is, then its file goes', async () => {
    const journal = new FileJournal(dir);
    const events = [1, 2, 3, 4].map((n) => makeEvent(n));
    await journal.appendMany(events);
    await journal.append(makeEvent(5));
    // a process that has not read the batch yet removes from it too
    await new FileJournal(dir).removeMany([events[0]!.id, events[2]!.id]);
    const fresh = new FileJournal(dir);
    expect((await fresh.pending()).map((e) => (e.payload as { n: number }).n)).toEqual([2, 4, 5]);
    expect(await fresh.size()).toBe(3);
    await fresh.removeMany([events[1]!.id, events[3]!.id]);
    expect((await new FileJournal(dir).pending()).map((e) => (e.payload as { n: number }).n)).toEqual([5]);
    expect(readdirSync(dir).filter((n) => !n.startsWith('.'))).toHaveLength(1);
    await expect(journal.appendMany([makeEvent(6), { ...makeEvent(7), id: '../x' }])).rejects.toMatchObject({ kind: 'validation' });
    expect(await journal.size()).toBe(1);
  });

  it('when an event id could be a path, then append and remove refuse it', async () => {
    const journal = new FileJournal(dir);
    await expect(journal.append({ ...makeEvent(1), id: '../../etc/passwd' })).rejects.toMatchObject({ kind: 'validation' });
    await expect(journal.remove('../x')).rejects.toMatchObject({ kind: 'validation' });
    expect(await journal.size()).toBe(0);
  });

  it('when the bus fails, then events stay journaled; when it works, then the relay publishes each once, in order, and empties the journal', async () => {
    const bus = new InProcessEventBus();
    let down = true;
    let failures = 0;
    const got: EventEnvelope[] = [];
    await bus.subscribe(
      'q',
      ['push'],
      async (e) => {
        if (down) {
          failures++;
          throw new Error('broker unreachable');
        }
        got.push(e);
      },
      { maxRedeliveries: 1000 },
    );
    const events = [makeEvent(1), makeEvent(2), makeEvent(3)];
    const journal = new FileJournal(dir);
    for (const e of events) await journal.append(e);

    const relay = startJournalRelay({ journal, bus, intervalMs: 20, batchSize: 2 });
    try {
      await waitFor(() => failures >= 2, 'failed attempts');
      expect(await relay.backlog()).toBe(3);
      expect(await new FileJournal(dir).pending()).toEqual(events);
      down = false;
      relay.kick();
      await waitFor(async () => (await relay.backlog()) === 0, 'journal emptied');
    } finally {
      await relay.stop();
    }
    expect(got).toEqual(events);
    expect(await new FileJournal(dir).pending()).toEqual([]);
  });

  it('when a pass holds more events than a slice, then the relay publishes every one once, in order; a failed slice holds back the rest until the next pass', async () => {
    const bus = new InProcessEventBus();
    const got: number[] = [];
    let failOn: number | undefined = 4;
    await bus.subscribe('q', ['push'], async (e) => {
      const n = (e.payload as { n: number }).n;
      if (n === failOn) {
        failOn = undefined;
        throw new Error('broker unreachable');
      }
      got.push(n);
    }, { maxRedeliveries: 1000 });
    const journal = new FileJournal(dir, { eventsPerFile: 4 });
    await journal.appendMany(Array.from({ length: 10 }, (_, n) => makeEvent(n)));
    const relay = startJournalRelay({ journal, bus, intervalMs: 20, batchSize: 10, sliceSize: 3 });
    try {
      await waitFor(async () => (await relay.backlog()) === 0, 'journal emptied');
    } finally {
      await relay.stop();
    }
    // slices [0,1,2] [3,4,5]: 4 failed, so 6.. waited; the next pass sent 4 and the rest
    expect(got).toEqual([0, 1, 2, 3, 5, 4, 6, 7, 8, 9]);
  });
});
