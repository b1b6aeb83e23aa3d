import { describe, expect, it } from '@jest/globals';
import { parentPid } from '@githost/test-support';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitHelper, spawnGitStream, type GitChild } from './command.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ended = (child: GitChild) => new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('close', (code, signal) => resolve([code, signal])));

/** A git started through the helper once it is ready (the first ones start here while it boots). */
async function throughHelper(start: () => Promise<GitChild>): Promise<GitChild> {
  gitHelper().warm();
  for (let i = 0; i < 200; i++) {
    const child = await start();
    if (gitHelper().pid !== undefined && parentPid(child.pid!) === gitHelper().pid) return child;
    child.kill('SIGKILL');
    child.stdout?.resume();
    child.stderr?.resume();
    await sleep(20);
  }
  throw new Error('no git was started through the helper');
}

describe('spawnGitStream', () => {
  it('when a git the helper started outlives timeoutMs, or its signal aborts, then it is killed (SIGKILL), as spawn does with its own', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'githost-stream-'));
    const gitDir = path.join(dir, 'r.git');
    execFileSync('git', ['init', '-q', '--bare', gitDir]);
    // cat-file waits for its commands on stdin, which this test never sends.
    const waiting = { name: 'cat-file', flags: ['--batch-check'] };
    try {
      const timed = await throughHelper(() => spawnGitStream(waiting, { gitDir, timeoutMs: 300 }));
      timed.stdout!.resume();
      timed.stderr!.resume();
      expect(await ended(timed)).toEqual([null, 'SIGKILL']);

      const controller = new AbortController();
      const aborted = await throughHelper(() => spawnGitStream(waiting, { gitDir, signal: controller.signal }));
      aborted.stdout!.resume();
      aborted.stderr!.resume();
      const done = ended(aborted);
      await sleep(100);
      expect(aborted.exitCode).toBeNull();
      controller.abort();
      expect(await done).toEqual([null, 'SIGKILL']);
    } finally {
      gitHelper().close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
