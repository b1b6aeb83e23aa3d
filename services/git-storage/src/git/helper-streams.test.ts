import { describe, expect, it } from '@jest/globals';
import { parentPid } from '@githost/test-support';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Writable } from 'node:stream';
import { gitEnv } from './command.js';
import { HelperStreams, type GitChild } from './helper-streams.js';
import { GitRunner, type StreamReport, type StreamRequest } from './runner.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const closed = (child: GitChild) => new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('close', (code, signal) => resolve([code, signal])));
const read = (child: GitChild) => {
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (b: Buffer) => chunks.push(b));
  return () => Buffer.concat(chunks);
};

/** A runner whose helper is up and ready for streams, and the streams through it. */
async function readyStreams(): Promise<{ runner: GitRunner; streams: HelperStreams }> {
  const runner = new GitRunner(2_000);
  const streams = new HelperStreams(runner);
  // Not ready yet: the caller starts git itself, and the helper is started for the next one.
  expect(streams.spawn(['--version'], gitEnv())).toBeUndefined();
  for (let i = 0; i < 200; i++) {
    const probe = streams.spawn(['--version'], gitEnv());
    if (probe) {
      const child = await probe;
      child.stdout!.resume();
      await closed(child);
      return { runner, streams };
    }
    await sleep(20);
  }
  throw new Error('the helper never became ready');
}

describe('HelperStreams', () => {
  it('when the helper is ready, then git runs as its child on sockets of this process: stdin and stdout pass byte for byte, its end comes as exit and close', async () => {
    const { runner, streams } = await readyStreams();
    try {
      const input = randomBytes(3 * 1024 * 1024);
      const child = await streams.spawn(['-c', 'alias.x=!cat', 'x'], gitEnv())!;
      expect(parentPid(child.pid!)).toBe(runner.pid);
      const output = read(child);
      const done = closed(child);
      const exitSeen = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end(input);
      expect(await done).toEqual([0, null]);
      await exitSeen;
      expect(child.exitCode).toBe(0);
      expect(output().equals(input)).toBe(true);
    } finally {
      runner.close();
    }
  });

  it('when git ends before its output is read (an advertisement), then all of it is still there and its end comes after', async () => {
    const { runner, streams } = await readyStreams();
    try {
      const child = await streams.spawn(['version', '--build-options'], gitEnv())!;
      await sleep(200); // git is long gone
      const output = read(child);
      const stderr: Buffer[] = [];
      child.stderr!.on('data', (b: Buffer) => stderr.push(b));
      expect(await closed(child)).toEqual([0, null]);
      expect(output().toString()).toMatch(/^git version /);
      expect(Buffer.concat(stderr).length).toBe(0);
    } finally {
      runner.close();
    }
  });

  it('when git is killed, then it ends with that signal; a git that cannot start is refused so the caller starts it itself', async () => {
    const { runner, streams } = await readyStreams();
    try {
      const child = await streams.spawn(['hash-object', '--stdin'], gitEnv())!; // waits for its input
      child.stdout!.resume();
      const done = closed(child);
      expect(child.kill('SIGTERM')).toBe(true);
      expect(await done).toEqual([null, 'SIGTERM']);
      expect(child.signalCode).toBe('SIGTERM');
      expect(child.kill('SIGTERM')).toBe(false);
      await expect(streams.spawn(['--version'], { PATH: '/nonexistent' })!).rejects.toThrow(/could not be started/);
    } finally {
      runner.close();
    }
  });

  it('when git is killed after the reader of its output went away (a push whose client died), then its end still comes as close', async () => {
    const { runner, streams } = await readyStreams();
    try {
      const child = await streams.spawn(['-c', 'alias.x=!cat', 'x'], gitEnv())!;
      const done = closed(child);
      // As the transport pipes git's output to the response, which closes with its client: the
      // pipe is undone and nothing reads git's output any more.
      const response = new Writable({ write: (_chunk, _enc, next) => next() });
      child.stdout!.pipe(response, { end: false });
      response.destroy();
      await new Promise((resolve) => response.once('close', resolve));
      child.stdin!.write('written after the reader went away\n');
      await sleep(100);
      child.kill('SIGTERM');
      // As node does for a ChildProcess, output nobody reads is drained once git ended.
      expect(await Promise.race([done, sleep(2_000).then(() => 'never')])).toEqual([null, 'SIGTERM']);
    } finally {
      runner.close();
    }
  });

  it('when the helper dies while it starts a stream\'s git, then the caller is answered (handed git or refused), never left waiting', async () => {
    for (let round = 0; round < 5; round++) {
      const { runner, streams } = await readyStreams();
      try {
        const starting = streams.spawn(['hash-object', '--stdin'], gitEnv())!;
        process.kill(runner.pid!, 'SIGKILL');
        const outcome = await Promise.race([
          starting.then(
            (child) => {
              child.stdin!.destroy();
              child.stdout!.resume();
              child.stderr!.resume();
              return 'handed';
            },
            () => 'refused',
          ),
          sleep(3_000).then(() => 'waiting'),
        ]);
        expect(['handed', 'refused']).toContain(outcome);
      } finally {
        runner.close();
      }
    }
  });

  it('when git\'s start and end are told in one turn after its sockets closed (a quick git under load), then the caller still hears its end', async () => {
    // The helper's side, as runner.ts's helper does it, with the timing a loaded machine gave: the
    // three connections proved and closed by a git that wrote nothing, and then "spawned" and
    // "exit" told together, as node emits two IPC messages read at once (process.nextTick each).
    const quickGit = {
      startStream(request: StreamRequest, report: (r: StreamReport) => void): number {
        const sockets = [0, 1, 2].map((fd) => net.connect(request.socketPath, function (this: net.Socket) {
          this.end(`${request.token} 7 ${fd}\n`);
        }));
        for (const socket of sockets) socket.on('error', () => undefined);
        void Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('close', resolve)))).then(async () => {
          await sleep(100); // accepted and read on this side, their ends seen
          process.nextTick(report, { id: 7, spawned: 4242 });
          process.nextTick(report, { id: 7, exit: { code: 0, signal: null } });
        });
        return 7;
      },
      killStream: () => undefined,
    };
    const streams = new HelperStreams(quickGit as unknown as GitRunner);
    const child = await streams.spawn(['diff-tree', 'HEAD', 'HEAD'], gitEnv())!;
    const output = read(child);
    expect(await Promise.race([closed(child), sleep(2_000).then(() => 'never')])).toEqual([0, null]);
    expect([child.pid, child.exitCode, output().length]).toEqual([4242, 0, 0]);
  });

  it('when a connection does not bring this process\'s token, then it is dropped and no stream gets it', async () => {
    const { runner, streams } = await readyStreams();
    try {
      const path = (streams as unknown as { socketPath: string }).socketPath;
      const socket = net.connect(path);
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.once('connect', resolve));
      const ended = new Promise((resolve) => socket.once('close', resolve));
      socket.write(`${'0'.repeat(48)} 1 1\n`);
      await ended;
      // Streams still work.
      const child = await streams.spawn(['--version'], gitEnv())!;
      const output = read(child);
      await closed(child);
      expect(output().toString()).toMatch(/^git version /);
    } finally {
      runner.close();
    }
  });
});
