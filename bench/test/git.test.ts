import { describe, expect, it } from '@jest/globals';
import { git, stopRunningGit } from '../src/git.js';

describe('stopRunningGit', () => {
  it('ends a git still running, with the processes it started, and its call fails', async () => {
    // An alias through the shell: git starts `sh`, which starts `sleep` (as a push starts its helpers).
    const started = git(['-c', 'alias.wait=!sleep 30', 'wait']);
    await new Promise((r) => setTimeout(r, 300));
    expect(stopRunningGit()).toBe(1);
    await expect(started).rejects.toThrow(/git -c alias.wait=!sleep 30 wait failed/);
    expect(stopRunningGit()).toBe(0);
  });

  it('leaves nothing to end once every git has exited', async () => {
    await git(['--version']);
    expect(stopRunningGit()).toBe(0);
  });
});
