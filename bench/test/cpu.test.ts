import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { cpuMs } from '../src/cpu.js';

describe('cpuMs', () => {
  it('when a process reaped a child that burned CPU, then only the count with exited children holds the child', () => {
    const own = cpuMs([process.pid]);
    const withChildren = cpuMs([process.pid], true);
    // 300 ms of CPU (not of wall time, which a loaded machine stretches) in a child this process waits for
    execFileSync(process.execPath, ['-e', 'while (process.cpuUsage().user < 300_000);']);
    const ownDelta = cpuMs([process.pid]) - own;
    const childrenDelta = cpuMs([process.pid], true) - withChildren;
    expect(childrenDelta - ownDelta).toBeGreaterThanOrEqual(200);
    expect(ownDelta).toBeLessThan(200);
  });
});
