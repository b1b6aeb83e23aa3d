import { describe, expect, it } from '@jest/globals';
import { PassThrough, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { IdleCutoff } from './idle-cutoff.js';

describe('IdleCutoff', () => {
  it('when the client sends nothing for the limit, then onIdle is called once', async () => {
    let idle = 0;
    const source = new PassThrough();
    const cutoff = source.pipe(new IdleCutoff(50, () => idle++));
    cutoff.resume();
    source.write('part');
    await sleep(30);
    expect(idle).toBe(0);
    await sleep(80);
    expect(idle).toBe(1);
    await sleep(80);
    expect(idle).toBe(1);
    cutoff.destroy();
  });

  it('when data keeps coming, or the body ends, then onIdle is never called and the bytes pass unchanged', async () => {
    let idle = 0;
    const source = new PassThrough();
    const cutoff = source.pipe(new IdleCutoff(50, () => idle++));
    const got: Buffer[] = [];
    cutoff.on('data', (b: Buffer) => got.push(b));
    for (let i = 0; i < 4; i++) {
      source.write(`chunk${i}`);
      await sleep(30);
    }
    source.end();
    await sleep(100);
    expect(idle).toBe(0);
    expect(Buffer.concat(got).toString()).toBe('chunk0chunk1chunk2chunk3');
  });

  it('when the reader is the slow one (data waits here), then the wait does not count against the client', async () => {
    let idle = 0;
    const cutoff = new IdleCutoff(50, () => idle++);
    cutoff.write(Buffer.alloc(64 * 1024));
    await sleep(150);
    expect(idle).toBe(0);
    let read = 0;
    cutoff.pipe(new Writable({ write: (chunk: Buffer, _e, cb) => ((read += chunk.length), cb()) }));
    await sleep(120);
    expect(read).toBe(64 * 1024);
    expect(idle).toBe(1);
    cutoff.destroy();
  });

  it('when the other direction moves (activity), then the client is not idle, and activity after the end arms nothing', async () => {
    let idle = 0;
    const source = new PassThrough();
    const cutoff = source.pipe(new IdleCutoff(50, () => idle++));
    cutoff.resume();
    for (let i = 0; i < 4; i++) {
      cutoff.activity();
      await sleep(30);
    }
    expect(idle).toBe(0);
    await sleep(80);
    expect(idle).toBe(1);
    cutoff.destroy();
    cutoff.activity();
    await sleep(80);
    expect(idle).toBe(1);
  });
});
