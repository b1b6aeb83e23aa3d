import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { lfsCases, watchLoops } from '../src/lfs.js';

describe('lfsCases', () => {
  it('when the total is 1 GiB, then the cases are 1,024 x 1 MiB, 10 x 100 MiB and 1 x 1 GiB', () => {
    expect(lfsCases(1024).map(({ label, count }) => `${count} x ${label}`)).toEqual(['1024 x 1 MiB', '10 x 100 MiB', '1 x 1 GiB']);
  });

  it('when the total is small (quick mode), then the middle size scales down and every case moves at most the total', () => {
    const cases = lfsCases(64);
    expect(cases.map(({ label, count }) => `${count} x ${label}`)).toEqual(['64 x 1 MiB', '4 x 16 MiB', '1 x 64 MiB']);
    for (const c of cases) expect(c.size * c.count).toBeLessThanOrEqual(64 * 1024 * 1024);
  });
});

describe('watchLoops', () => {
  it('when a watched loop computes, then its time on a CPU grows; a process that is gone counts nothing on a CPU or waiting for one', () => {
    // pid_max is at most 2^22: this pid names no process.
    const stop = watchLoops({ self: process.pid, gone: 2 ** 23 });
    const hash = createHash('sha256');
    for (let i = 0; i < 2000; i++) hash.update(Buffer.alloc(64 * 1024, i));
    hash.digest();
    const loops = stop();
    expect(loops.self!.runMs).toBeGreaterThan(0);
    expect(loops.self!.asleepMs).toBeGreaterThanOrEqual(0);
    expect([loops.gone!.runMs, loops.gone!.queuedMs]).toEqual([0, 0]);
  });
});
