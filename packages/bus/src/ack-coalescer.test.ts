import { describe, expect, it } from '@jest/globals';
import { AckCoalescer } from './ack-coalescer.js';

type Frame = [tag: number, multiple: boolean];

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function coalescer(holdMs = 20): { acks: AckCoalescer; frames: Frame[] } {
  const frames: Frame[] = [];
  const acks = new AckCoalescer((tag, multiple) => frames.push([tag, multiple]), holdMs);
  return { acks, frames };
}

describe('AckCoalescer', () => {
  it('when deliveries finish in the same turn, then one frame with multiple set acks them all', async () => {
    const { acks, frames } = coalescer();
    for (const tag of [1, 2, 3, 4]) acks.received(tag);
    for (const tag of [3, 1, 4, 2]) acks.ack(tag);
    expect(frames).toEqual([]);
    await nextTurn();
    expect(frames).toEqual([[4, true]]);
    expect(acks.pending).toBe(0);
  });

  it('when a delivery before them is still being handled, then the multiple frame stops before it and the others wait at most the hold', async () => {
    const { acks, frames } = coalescer(30);
    for (const tag of [1, 2, 3, 4, 5]) acks.received(tag);
    for (const tag of [1, 2, 4, 5]) acks.ack(tag);
    await nextTurn();
    // 3 is unfinished: a multiple ack at 4 or 5 would ack it too.
    expect(frames).toEqual([[2, true]]);
    await after(60);
    expect(frames).toEqual([
      [2, true],
      [4, false],
      [5, false],
    ]);
    acks.ack(3);
    await nextTurn();
    // 4 and 5 are settled already; the frame at 3 acks only 3.
    expect(frames[3]).toEqual([3, true]);
    expect(acks.pending).toBe(0);
  });

  it('when the blocking delivery finishes within the hold, then everything goes in one multiple frame', async () => {
    const { acks, frames } = coalescer(50);
    for (const tag of [1, 2, 3]) acks.received(tag);
    acks.ack(2);
    acks.ack(3);
    await nextTurn();
    expect(frames).toEqual([]);
    acks.ack(1);
    await nextTurn();
    expect(frames).toEqual([[3, true]]);
    await after(80);
    expect(frames).toEqual([[3, true]]);
  });

  it('when a delivery was nacked, then it no longer blocks the run and is never acked', async () => {
    const { acks, frames } = coalescer();
    for (const tag of [1, 2, 3]) acks.received(tag);
    acks.ack(2);
    acks.ack(3);
    acks.settledElsewhere(1);
    await nextTurn();
    expect(frames).toEqual([[3, true]]);
    expect(acks.pending).toBe(0);
  });

  it('when the channel closes, then flushNow sends every finished ack at once, and after stop nothing is sent', async () => {
    const { acks, frames } = coalescer(1000);
    for (const tag of [1, 2, 3, 4]) acks.received(tag);
    acks.ack(1);
    acks.ack(3);
    acks.flushNow();
    expect(frames).toEqual([
      [1, true],
      [3, false],
    ]);
    acks.stop();
    acks.ack(2);
    acks.ack(4);
    await nextTurn();
    expect(frames).toHaveLength(2);
  });

  it('when many deliveries pass in order, then every frame acks a run of them and the count stays right', async () => {
    const { acks, frames } = coalescer();
    for (let tag = 1; tag <= 5000; tag++) {
      acks.received(tag);
      acks.ack(tag);
      if (tag % 100 === 0) await nextTurn();
    }
    await nextTurn();
    expect(frames.at(-1)).toEqual([5000, true]);
    expect(frames.every(([, multiple]) => multiple)).toBe(true);
    expect(acks.pending).toBe(0);
  });
});
