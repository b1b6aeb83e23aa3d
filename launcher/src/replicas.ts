import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '@githost/config';
import type { Logger } from '@githost/logging';
import { countSetting } from './shards.js';

/**
 * GITHOST_REPLICAS (docs/decisions/replicas.md): N processes of each stateless service and N
 * gateways on one machine, all behind one haproxy the launcher runs. git-storage stays sharded
 * (GITHOST_SHARDS), ssh stays one.
 */
export const MAX_REPLICAS = 8;

/** The services that run as replicas; the others reach each through its haproxy section: HTTP at
 *  `urlVar`, and gRPC (accounts) at `grpcVar`, a TCP section (docs/decisions/replicas.md#accounts). */
export const REPLICATED: ReadonlyArray<{ name: string; urlVar: string; grpcVar?: string }> = [
  { name: 'accounts', urlVar: 'ACCOUNTS_HTTP_URL', grpcVar: 'ACCOUNTS_GRPC_ADDR' },
  { name: 'browse', urlVar: 'BROWSE_URL' },
  { name: 'merge-requests', urlVar: 'MERGE_REQUESTS_URL' },
  { name: 'webhooks', urlVar: 'WEBHOOKS_URL' },
  { name: 'web', urlVar: 'WEB_URL' },
];

export function replicaCount(option: number | undefined, envValue: string | undefined): number {
  return countSetting(option, envValue, 'launcher: GITHOST_REPLICAS (replicas)', MAX_REPLICAS);
}

/** Replicas are processes (the in-process mode has one of each by construction) sharing one Postgres. */
export function requireProcessesForReplicas(replicas: number, split: boolean, databaseUrl: string | undefined): void {
  if (replicas > 1 && !split) {
    throw new ConfigError('launcher: GITHOST_REPLICAS above 1 needs GITHOST_PROCESS_PER_SERVICE=true (and so AMQP_URL): replicas are separate processes sharing Postgres, RabbitMQ and Redis.');
  }
  // Two processes cannot open one embedded database (PGlite) directory.
  if (replicas > 1 && !databaseUrl) {
    throw new ConfigError('launcher: GITHOST_REPLICAS above 1 needs DATABASE_URL: replicas of a service share its Postgres database; the embedded one belongs to one process.');
  }
}

export interface ProxySection {
  name: string;
  /** haproxy listens here (loopback, or every address for the public one). */
  port: number;
  bind?: string;
  /** The replicas' loopback ports. */
  servers: number[];
  /** Adds the client's address to `X-Forwarded-For` (the public section: the gateways trust one hop). */
  forwardFor?: boolean;
  /** `tcp` for gRPC: haproxy passes the HTTP/2 connection through. Default `http`. */
  mode?: 'http' | 'tcp';
  /** The HTTP section of the same processes (same order as `servers`): each server follows that
   *  section's check of its process (`track`) instead of checking the same `/readyz` a second
   *  time (docs/decisions/replicas.md#accounts). */
  tracks?: string;
}

/** GITHOST_SHUTDOWN_DELAY_MS for replicas unless set: haproxy's checks (every 500 ms, out after 2
 *  failures) take a stopping replica out within about a second; twice that on a loaded machine,
 *  so that a replica closes its kept-alive connections only once haproxy sends nothing on them. */
export const REPLICA_SHUTDOWN_DELAY_MS = 2_000;

/** How long haproxy keeps a client's idle connection: longer than the gateway's and the web's
 *  agents keep theirs idle (60 s, gateway/src/forwarding/upstream-agent.ts), so it is always the
 *  client that closes one, never haproxy while a request is being written on it. */
export const CLIENT_KEEP_ALIVE_S = 75;

/** How haproxy checks each server (docs/decisions/replicas.md#slow-is-not-hung): every 500 ms,
 *  down after 2 failures, up after 1 success. A check fails when the connection is refused at once
 *  (a killed replica: out in about a second, as before), or when `/readyz` has not answered within
 *  CHECK_TIMEOUT (a hung one). Without `timeout check` haproxy gives a whole check `inter`, 500 ms,
 *  which a replica that is only slow on a loaded machine misses twice in a row, and is then taken
 *  out with its requests cut. A hung server is out within 2 x (inter + CHECK_TIMEOUT), 5 s. */
export const CHECK_TIMEOUT = '2s';
const CHECK = 'check inter 500ms fall 2 rise 1';

/** A server marked down has its requests in flight cut at once, not left to `timeout server`
 *  (5 min): one that hangs without dying (SIGSTOP) holds them unanswered, so a GET or HEAD so cut
 *  is sent to another server (`empty-response`), any other method answered haproxy's 502 (503
 *  to the client: BALANCER_ERRORS) once the checks have it down, within 5 s of the hang (docs/decisions/replicas.md#a-server-that-hangs). On a `-writes` server too:
 *  a tracking server is marked down with the one it tracks. */
const ON_MARKED_DOWN = 'on-marked-down shutdown-sessions';

/** haproxy's own answers (a server that failed or was cut before answering, none up, no answer in
 *  time) as every githost error is: JSON `{"error"}` and 503, the contract's status for a part of
 *  githost that could not answer (docs/contract.md#4-errors), never haproxy's HTML 502 or 504.
 *  githost's own processes never answer 502 or 504, so the rewrite touches only haproxy's. */
const BALANCER_ERRORS = [
  `  http-error status 502 content-type application/json string '{"error":"Service unavailable: the server failed before answering"}'`,
  `  http-error status 503 content-type application/json string '{"error":"Service unavailable: no server is up"}'`,
  `  http-error status 504 content-type application/json string '{"error":"Service unavailable: the server did not answer in time"}'`,
  '  http-after-response set-status 503 if { status 502 } || { status 504 }',
];

/** The check asks a server that is alive but not ready (draining, a dependency out) to answer 404,
 *  which `http-check disable-on-404` takes as out of rotation (NOLB) rather than down: its requests
 *  in flight finish, as a drain needs. Down, with its requests cut, is a server that does not
 *  answer, refuses, or answers anything else. */
const READYZ_CHECK = '/readyz?not_ready=404';

/**
 * One `listen` section per service and one for the gateways: round robin, each server checked on
 * `/readyz` every 500 ms and out after 2 failures (CHECK), so a killed replica stops getting requests
 * within about a second and a hung one within 5 s. Connections are kept alive on both sides (docs/decisions/replicas.md#keep-alive):
 * a GET or HEAD goes out on any idle connection to the chosen server (`http-reuse always`), and is
 * tried again on another server (`redispatch 1`: every retry moves on) when its connection failed
 * or closed without a byte of answer: a replica killed mid-request, or one closing an idle
 * connection just as haproxy wrote on it. Any other method goes to `<name>-writes`, the same
 * servers (tracking the section's checks) on a new connection each, as before keep-alive: such a
 * request may have changed something already, so it is never sent twice, and only a connection
 * that was refused (never sent) is tried elsewhere (docs/decisions/replicas.md#a-replica-that-dies).
 */
export function haproxyConfig(sections: ProxySection[], statsPort?: number): string {
  const lines = [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 5m',
    '  timeout server 5m',
    '  timeout http-request 30s',
    `  timeout check ${CHECK_TIMEOUT}`,
    `  timeout http-keep-alive ${CLIENT_KEEP_ALIVE_S}s`,
    '  retries 2',
    '  option redispatch 1',
    '  option http-keep-alive',
  ];
  const writes: string[] = [];
  for (const s of sections) {
    lines.push(`listen ${s.name}`, `  bind ${s.bind ?? '127.0.0.1'}:${s.port}`, '  balance roundrobin', `  option httpchk GET ${READYZ_CHECK}`, '  http-check disable-on-404', '  http-check expect status 200');
    if (s.mode === 'tcp') {
      // A gRPC connection lives as long as its client: an idle one is not cut after minutes.
      lines.push('  mode tcp', '  timeout client 1h', '  timeout server 1h');
    } else {
      lines.push('  http-reuse always', '  retry-on conn-failure empty-response', `  use_backend ${s.name}-writes unless METH_GET`, ...BALANCER_ERRORS);
      writes.push(`backend ${s.name}-writes`, '  balance roundrobin', '  http-check disable-on-404', '  option http-server-close', '  http-reuse never', '  retry-on conn-failure');
      s.servers.forEach((port, i) => writes.push(`  server ${s.name}-${i + 1} 127.0.0.1:${port} track ${s.name}/${s.name}-${i + 1} ${ON_MARKED_DOWN}`));
    }
    if (s.forwardFor) lines.push('  option forwardfor');
    s.servers.forEach((port, i) => {
      const check = s.tracks ? `track ${s.tracks}/${s.tracks}-${i + 1}` : CHECK;
      lines.push(`  server ${s.name}-${i + 1} 127.0.0.1:${port} ${check} ${ON_MARKED_DOWN}`);
    });
  }
  lines.push(...writes);
  // Which servers haproxy has taken out (`<url>/;csv`), on loopback only.
  if (statsPort) lines.push('listen stats', `  bind 127.0.0.1:${statsPort}`, '  stats enable', '  stats uri /');
  return `${lines.join('\n')}\n`;
}

export interface RunningHaproxy {
  pid: number;
  stop(): Promise<void>;
}

/** haproxy with `config` from a temp dir, in the foreground (`-db`) as our child; resolves once `waitPort` accepts. */
export async function startHaproxy(config: string, waitPort: number, logger: Logger, binary = 'haproxy'): Promise<RunningHaproxy> {
  const dir = mkdtempSync(path.join(tmpdir(), 'githost-haproxy-'));
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const proc: ChildProcess = spawn(binary, ['-f', file, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => proc.once('close', () => resolve()));
  const failed = new Promise<never>((_, reject) => {
    proc.once('error', (err) => reject(new Error(`haproxy could not start (${binary}): ${err.message}; install Debian's haproxy`)));
    proc.once('exit', (code, signal) => reject(new Error(`haproxy exited (${signal ?? code}) while starting: ${stderr.trim()}`)));
  });
  const stop = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.race([failed, waitForPort(waitPort)]);
  } catch (err) {
    await stop();
    throw err;
  }
  failed.catch(() => undefined);
  proc.once('exit', (code, signal) => logger.warn({ code, signal }, 'haproxy exited'));
  return { pid: proc.pid!, stop };
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await accepts(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`haproxy did not listen on port ${port} within 10 s`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Resolves once every address answers `GET /readyz` 200, or after `timeoutMs` with the ones that
 * did not (logged by the caller). With replicas, the gateways start before haproxy binds the
 * sections they reach accounts through, so each is ready only once its gRPC channel has come
 * back from its backoff: a start that returned before would send its first requests (haproxy
 * counts a server up until its checks fail) to gateways answering 503.
 */
export async function waitUntilReady(urls: readonly string[], timeoutMs = 60_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let waiting = [...urls];
  for (;;) {
    const answers = await Promise.all(waiting.map((url) => fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status === 200, () => false)));
    waiting = waiting.filter((_, i) => !answers[i]);
    if (waiting.length === 0 || Date.now() > deadline) return waiting;
    await new Promise((r) => setTimeout(r, 100));
  }
}
