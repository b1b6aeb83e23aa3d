import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { waitForQuiet } from '../src/quiet.js';

describe('waitForQuiet', () => {
  it('when a process runs busy children one after another, then it is quiet only after the last one ended, not when the first did', async () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'bench-quiet-'));
    const done = join(dir, 'done');
    // A stand-in for git-storage running housekeeping's steps: each a child that spins for 1.5 s
    // and exits (its time then moves to the parent's cutime), the next one started at once.
    const busy = 'const end = Date.now() + 1500; while (Date.now() < end);';
    const parent = spawn(process.execPath, ['-e', `
      const { execFileSync } = require('node:child_process');
      for (let i = 0; i < 3; i++) execFileSync(process.execPath, ['-e', ${JSON.stringify(busy)}]);
      require('node:fs').writeFileSync(${JSON.stringify(done)}, '');
      setInterval(() => {}, 1000);
    `], { stdio: 'ignore' });
    try {
      await waitForQuiet(parent.pid!, 30_000);
      expect(existsSync(done)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);
});
