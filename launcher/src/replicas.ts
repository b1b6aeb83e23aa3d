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
  /** `tcp` for gRPC: haproxy passes the HTTP/2 connection through, and checks each server's HTTP
   *  `/readyz` on `checkPorts` (same order as `servers`) instead. Default `http`. */
  mode?: 'http' | 'tcp';
  checkPorts?: number[];
}

/**
 * One `listen` section per service and one for the gateways: round robin, each server checked on
 * `/readyz` every 500 ms and out after 2 failures, so a killed replica stops getting requests within
 * about a second. A request is tried again on another server (`redispatch 1`: every retry moves on)
 * when its connection failed before it was sent, whatever its method; and a GET or HEAD also when
 * the server closed the connection without a byte of answer (a replica killed mid-request),
 * never any other method, which may have changed something already
 * (docs/decisions/replicas.md#a-replica-that-dies).
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
    '  retries 2',
    '  option redispatch 1',
    '  option http-server-close',
  ];
  for (const s of sections) {
    lines.push(`listen ${s.name}`, `  bind ${s.bind ?? '127.0.0.1'}:${s.port}`, '  balance roundrobin', '  option httpchk GET /readyz', '  http-check expect status 200');
    if (s.mode === 'tcp') {
      // A gRPC connection lives as long as its client: an idle one is not cut after minutes.
      lines.push('  mode tcp', '  no option http-server-close', '  timeout client 1h', '  timeout server 1h');
    } else {
      lines.push('  retry-on conn-failure empty-response', '  http-request disable-l7-retry unless METH_GET');
    }
    if (s.forwardFor) lines.push('  option forwardfor');
    s.servers.forEach((port, i) => {
      const checkPort = s.checkPorts?.[i];
      lines.push(`  server ${s.name}-${i + 1} 127.0.0.1:${port} check${checkPort ? ` port ${checkPort}` : ''} inter 500ms fall 2 rise 1`);
    });
  }
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
