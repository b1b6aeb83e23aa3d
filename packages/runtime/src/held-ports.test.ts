import { describe, expect, it } from '@jest/globals';
import { holdUntilBound, releaseForBind } from './held-ports.js';

describe('ports held until bound', () => {
  it('when a held port is asked for, then its release runs once, and a port nobody holds asks nothing', async () => {
    const released: number[] = [];
    holdUntilBound(40_001, async () => void released.push(40_001));
    await releaseForBind(40_002);
    expect(released).toEqual([]);
    await releaseForBind(40_001);
    await releaseForBind(40_001);
    expect(released).toEqual([40_001]);
  });
});
