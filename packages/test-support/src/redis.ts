import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './ports.js';
import { waitFor } from './eventually.js';

/** The machine's Redis (Debian's redis-server), shared by everyone: each test uses its own key prefix. */
export const MACHINE_REDIS_URL = 'redis://127.0.0.1:6379';

/** A Redis of the test's own, on a port of its own, that it may stop and start again (an outage
 *  without touching the machine's Redis). Nothing is saved to disk. */
export interface OwnRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, waits for its exit). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const own: OwnRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], { stdio: 'ignore' });
      await waitFor(() => pings(port), `redis-server on ${port}`);
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
  };
  await own.start();
  return own;
}

function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Every key under `prefix`, with its value (redis-cli: no client library needed here). */
export function redisKeys(url: string, prefix: string): string[] {
  const out = execFileSync('redis-cli', ['-u', url, '--scan', '--pattern', `${prefix}*`], { encoding: 'utf8' });
  return out.split('\n').filter((k) => k !== '').sort();
}

/** Removes every key under `prefix`: what a test leaves behind on a shared Redis. */
export function removeRedisKeys(url: string, prefix: string): void {
  const keys = redisKeys(url, prefix);
  if (keys.length > 0) execFileSync('redis-cli', ['-u', url, 'DEL', ...keys], { encoding: 'utf8' });
}

/** One redis-cli command's answer (a test reading a counter, pausing clients). */
export function redisCli(url: string, ...args: string[]): string {
  return execFileSync('redis-cli', ['-u', url, ...args], { encoding: 'utf8' }).trim();
}
