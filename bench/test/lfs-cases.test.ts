import { describe, expect, it } from '@jest/globals';
import { lfsCases } from '../src/lfs.js';

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
