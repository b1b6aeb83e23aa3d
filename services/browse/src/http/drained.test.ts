import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { drained } from './drained.js';

/** A socket-like sink that takes one chunk at a time, slowly: every write waits for a drain. */
function slowSink(): Writable {
  return new Writable({ highWaterMark: 1, write: (_chunk, _enc, next) => void setTimeout(next, 1) });
}

describe('drained', () => {
  it('when a writer waits for drain piece after piece, then no listener is left behind by any wait', async () => {
    const sink = slowSink();
    const before = { drain: sink.listenerCount('drain'), close: sink.listenerCount('close'), error: sink.listenerCount('error') };
    for (let i = 0; i < 50; i++) {
      expect(sink.write(`piece ${i}`)).toBe(false);
      await drained(sink);
    }
    expect({ drain: sink.listenerCount('drain'), close: sink.listenerCount('close'), error: sink.listenerCount('error') }).toEqual(before);
  });

  it('when the writer goes away while a wait is on, then the wait ends; on one already gone, at once', async () => {
    const sink = slowSink();
    sink.write('piece');
    const waiting = drained(sink);
    sink.destroy();
    await waiting;
    await drained(sink);
    expect(sink.listenerCount('drain')).toBe(0);
  });
});
