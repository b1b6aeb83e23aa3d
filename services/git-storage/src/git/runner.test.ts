import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { gitEnv } from './command.js';
import { GitRunner } from './runner.js';

/** A git alias runs a shell command as git's child: what it prints tells where git ran. */
const shell = (command: string) => ['-c', `alias.x=!${command}`, 'x'];
const request = (argv: string[], extra: { stdin?: Buffer; timeoutMs?: number; maxStdoutBytes?: number } = {}) => ({
  argv,
  env: gitEnv(),
  stdin: extra.stdin ?? Buffer.alloc(0),
  timeoutMs: extra.timeoutMs ?? 10_000,
  maxStdoutBytes: extra.maxStdoutBytes,
});
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('GitRunner', () => {
  it('when a run asks for a niceness, then git runs that much lower in CPU priority than the service; otherwise at its priority', async () => {
    const runner = new GitRunner();
    try {
      // The alias's shell asks for git's (its parent's) nice value once git has been running a moment.
      const niceOfGit = async (niceness?: number) => Number((await runner.run({ ...request(shell('sleep 0.2; ps -o ni= -p $PPID')), niceness })).stdout.toString().trim());
      const own = os.getPriority();
      expect(await niceOfGit(10)).toBe(Math.min(19, own + 10));
      expect(await niceOfGit()).toBe(own);
    } finally {
      runner.close();
    }
  });

  it('when a run asks for an oom_score_adj, then git has it (the kernel kills it first when memory runs out); otherwise the service\'s', async () => {
    const runner = new GitRunner();
    try {
      const scoreOfGit = async (oomScoreAdj?: number) => Number((await runner.run({ ...request(shell('sleep 0.2; cat /proc/$PPID/oom_score_adj')), oomScoreAdj })).stdout.toString().trim());
      const own = Number(readFileSync('/proc/self/oom_score_adj', 'utf8').trim());
      expect(await scoreOfGit(1000)).toBe(1000);
      expect(await scoreOfGit()).toBe(own);
    } finally {
      runner.close();
    }
  });

  it('when git runs, then its parent is the helper, not this process, and stdin and stdout pass byte for byte', async () => {
    const runner = new GitRunner();
    try {
      const parent = await runner.run(request(shell('ps -o ppid= -p $PPID')));
      expect(Number(parent.stdout.toString().trim())).toBe(runner.pid);
      expect(runner.pid).not.toBe(process.pid);
      const bytes = randomBytes(1 << 20);
      const echoed = await runner.run(request(shell('cat'), { stdin: bytes }));
      expect([echoed.code, echoed.stdout.equals(bytes)]).toEqual([0, true]);
      const failed = await runner.run(request(shell('echo nope >&2; exit 3')));
      expect([failed.code, failed.stderr.trim(), failed.stopped]).toEqual([3, 'nope', undefined]);
    } finally {
      runner.close();
    }
  });

  it('when git writes a long output a line at a time (as rev-list into a pipe), then it comes back whole and the helper lives on', async () => {
    const runner = new GitRunner();
    try {
      // Two million lines, each flushed on its own: hundreds of thousands of small reads, whose
      // chunks, kept one by one, filled the helper's 32 MiB heap and killed it.
      const lines = 2_000_000;
      const printed = await runner.run(request(shell(`awk 'BEGIN { for (i = 0; i < ${lines}; i++) { print i; fflush() } }'`), { timeoutMs: 60_000 }));
      const helper = runner.pid!;
      expect(printed.code).toBe(0);
      const text = printed.stdout.toString();
      let length = 0;
      for (let i = 0; i < lines; i++) length += String(i).length + 1;
      expect(text.length).toBe(length);
      expect(text.slice(0, 6)).toBe('0\n1\n2\n');
      expect(text.endsWith(`${lines - 1}\n`)).toBe(true);
      expect((await runner.run(request(['--version']))).code).toBe(0);
      expect(runner.pid).toBe(helper);
    } finally {
      runner.close();
    }
  }, 90_000);

  it('when the caller aborts, the run is too long or prints too much, then the helper kills git and says why', async () => {
    const runner = new GitRunner();
    try {
      const controller = new AbortController();
      // git is killed at once; the shell's sleep it started holds the pipes until it ends.
      const cancelled = runner.run(request(shell('sleep 1')), controller.signal);
      setTimeout(() => controller.abort(), 100);
      expect((await cancelled).stopped).toBe('cancelled');
      expect((await runner.run(request(shell('sleep 1'), { timeoutMs: 100 }))).stopped).toBe('timeout');
      expect((await runner.run(request(shell('head -c 100000 /dev/zero'), { maxStdoutBytes: 1000 }))).stopped).toBe('too-big');
    } finally {
      runner.close();
    }
  });

  it('when the helper is killed mid-run, then the run fails as unavailable and the next run starts a new helper', async () => {
    const runner = new GitRunner();
    try {
      await runner.run(request(['--version']));
      const first = runner.pid!;
      const running = runner.run(request(shell('sleep 5')));
      await sleep(100);
      process.kill(first, 'SIGKILL');
      await expect(running).rejects.toMatchObject({ kind: 'unavailable' });
      const again = await runner.run(request(['--version']));
      expect([again.code, again.stdout.toString().startsWith('git version')]).toEqual([0, true]);
      expect(runner.pid).not.toBe(first);
    } finally {
      runner.close();
    }
  });

  it('when the helper is warmed, then it starts before any run, the next run uses it, and unused it is let go after its idle time', async () => {
    const runner = new GitRunner(300);
    expect(runner.pid).toBeUndefined();
    runner.warm();
    const warmed = runner.pid!;
    expect(alive(warmed)).toBe(true);
    runner.warm(); // already running: the same helper
    expect(runner.pid).toBe(warmed);
    expect((await runner.run(request(['--version']))).code).toBe(0);
    expect(runner.pid).toBe(warmed);
    await sleep(1_200);
    expect(alive(warmed)).toBe(false);
    runner.warm();
    const again = runner.pid!;
    expect(again).not.toBe(warmed);
    await sleep(1_200);
    expect(alive(again)).toBe(false);
    runner.close();
  });

  it('when the helper has had no work for its idle time, then it exits; the next run starts another', async () => {
    const runner = new GitRunner(200);
    await runner.run(request(['--version']));
    const first = runner.pid!;
    await sleep(1_000);
    expect(alive(first)).toBe(false);
    expect((await runner.run(request(['--version']))).code).toBe(0);
    expect(runner.pid).not.toBe(first);
    runner.close();
  });
});
