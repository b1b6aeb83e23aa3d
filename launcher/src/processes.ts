import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ConfigError, env, loadConfig, z } from '@githost/config';
import type { Logger } from '@githost/logging';
import type { ServicePorts } from '@githost/runtime';
import { GRPC_PORT_HELD_ENV, PORT_RELEASED_MESSAGE, PUBLIC_SERVER_MESSAGE, STOP_NOW_MESSAGE, type ChildMessage } from './child-messages.js';
import type { ReservedPort } from './public-port.js';

export { PUBLIC_SERVER_MESSAGE, type ChildMessage };

export type Ports = ServicePorts;

export interface ServiceProcess {
  name: string;
  pid: number;
}

/**
 * V8 flags a service's process starts with beyond the launcher's own. The SSH service holds
 * nothing between connections, and its young generation otherwise grows to V8's default (16 MiB
 * semi-spaces) under a clone's garbage and stays that large once idle. A young-generation
 * collection is also scheduled as soon as 1 % of it is used, rather than 80 %: the packet buffers
 * a transfer leaves are freed once it ends instead of waiting, mapped, for allocations that
 * never come to an idle process; and `--expose-gc` lets the service run one full collection once
 * its last command ended, for the buffers that reached the old generation
 * (docs/decisions/ssh-server.md#memory; `--no-opt` was measured there and not applied).
 */
export const SERVICE_V8_FLAGS: Readonly<Record<string, readonly string[]>> = {
  ssh: ['--max-semi-space-size=1', '--minor-gc-task-trigger=1', '--expose-gc'],
  // git-storage starts with room for 64 MiB of old generation: every body chunk it streams (a push,
  // an LFS object) is a buffer V8 counts against that limit, and with its default limit it ran a
  // full mark-compact every few MiB; measured, 25-60 % less of its CPU per LFS transfer for 5 MiB
  // more at rest (docs/decisions/lfs.md#throughput).
  'git-storage': ['--initial-old-space-size=64'],
};

/**
 * Environment a service's process starts with unless the launcher's own environment sets the same
 * variable. The SSH service's packet buffers (4-64 KiB) otherwise come from glibc's main heap,
 * which keeps their pages after a push or a clone; at a 4 KiB mmap threshold each is its own
 * mapping, returned when freed. glibc still carves a large block from its heap's free top before
 * it maps one, and grows that top by 128 KiB beyond each small allocation's need: with no such
 * padding the packet buffers stop landing in the heap (docs/decisions/ssh-server.md#memory).
 */
export const SERVICE_ENV: Readonly<Record<string, Readonly<Record<string, string>>>> = { ssh: { MALLOC_MMAP_THRESHOLD_: '4096', MALLOC_TOP_PAD_: '0' } };

/** A stopping child gets this long to finish its requests before SIGKILL. */
const STOP_GRACE_MS = 30_000;

/** GITHOST_PROCESS_PER_SERVICE; the option wins. */
export function processPerService(option: boolean | undefined, value: string | undefined): boolean {
  if (option !== undefined) return option;
  const schema = z.object({ GITHOST_PROCESS_PER_SERVICE: env.bool(false) });
  return loadConfig('launcher', schema, { GITHOST_PROCESS_PER_SERVICE: value?.trim() || undefined }).GITHOST_PROCESS_PER_SERVICE;
}

/** The in-process bus reaches only its own process: split services need RabbitMQ between them. */
export function requireBrokerForProcesses(amqpUrl: string | undefined): void {
  if (!amqpUrl) {
    throw new ConfigError(
      'launcher: GITHOST_PROCESS_PER_SERVICE=true needs AMQP_URL: the in-process event bus cannot carry events between processes. Set AMQP_URL to a RabbitMQ URL, or unset GITHOST_PROCESS_PER_SERVICE to run every service in one process.',
    );
  }
}

/** The child entry is JavaScript: from the sources (under jest) it is the built one. */
export function childEntry(): string {
  for (const candidate of ['./child.js', '../dist/child.js']) {
    const file = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(file)) return file;
  }
  throw new Error('launcher/dist/child.js is missing: build the launcher first (npx turbo run build --filter=@githost/launcher)');
}

interface Child {
  name: string;
  module: string;
  stage: number;
  process: ChildProcess;
  /** Set once it reported `started`: from then on, exiting on its own is a crash. */
  running: boolean;
  exited: Promise<void>;
}

/**
 * One child process per service (GITHOST_PROCESS_PER_SERVICE), as deployed on Kubernetes. The
 * children run in their own process groups, so a Ctrl-C reaches the launcher alone and the
 * launcher stops them in reverse start order; each child also stops when the IPC channel closes,
 * which is how it notices the launcher died (even by SIGKILL) and leaves no orphan.
 */
export class ServiceProcesses {
  private readonly children: Child[] = [];
  /** Modules run as replicas behind haproxy (GITHOST_REPLICAS): one of them dying is not a crash
   *  while another of the same module still runs, since haproxy takes the dead one out. */
  readonly replicated = new Set<string>();
  private stopping: Promise<void> | undefined;
  private reportCrash!: (err: Error) => void;
  /** Settles after an unexpected child exit, once every other child was stopped. */
  readonly crashed = new Promise<Error>((resolve) => (this.reportCrash = resolve));
  private readonly killAll = (): void => {
    for (const c of this.children) if (alive(c.process)) c.process.kill('SIGKILL');
  };

  constructor(
    private readonly logger: Logger,
    private readonly entry = childEntry(),
    private readonly entryFor: (module: string) => string | undefined = () => undefined,
  ) {
    // Last resort when the launcher exits without stopping (process.exit after a failure).
    process.on('exit', this.killAll);
  }

  list(): ServiceProcess[] {
    return this.children.filter((c) => c.running).map((c) => ({ name: c.name, pid: c.process.pid! }));
  }

  /**
   * Forks `module` (a STAGES name, or `gateway`) as `name` with `env` as its whole environment;
   * resolves with its ports once it serves.
   * `publicServer` goes to the gateway, which serves on that already bound port. `grpcPort`, the
   * child's reserved GRPC_PORT, stays bound until the child is about to bind it ('release-port'); a
   * child of another build (`entryFor`) may not ask, so it is freed before that one starts.
   */
  async start(name: string, module: string, stage: number, childEnv: NodeJS.ProcessEnv, publicServer?: Server, grpcPort?: ReservedPort): Promise<Ports> {
    if (this.stopping) throw new Error(`githost is stopping: ${name} not started`);
    const entry = this.entryFor(module);
    if (entry !== undefined) await grpcPort?.release();
    const held = entry === undefined && grpcPort ? { [GRPC_PORT_HELD_ENV]: 'true' } : {};
    const proc = fork(entry ?? this.entry, [module, name], { env: { ...SERVICE_ENV[module], ...childEnv, ...held }, detached: true, execArgv: [...process.execArgv, ...(SERVICE_V8_FLAGS[module] ?? [])] });
    let settle: ((err: Error | undefined, ports?: Ports) => void) | undefined;
    const started = new Promise<Ports>((resolve, reject) => {
      settle = (err, ports) => {
        settle = undefined;
        if (err) reject(err);
        else resolve(ports ?? {});
      };
    });
    const child: Child = {
      name,
      module,
      stage,
      process: proc,
      running: false,
      exited: new Promise((resolve) =>
        proc.once('exit', (code, signal) => {
          resolve();
          settle?.(new Error(`${name} exited (${exitDescription(code, signal)}) while starting`));
          if (child.running && !this.stopping) this.crash(child, code, signal);
        }),
      ),
    };
    this.children.push(child);
    proc.once('error', (err) => settle?.(err));
    proc.on('message', (message: ChildMessage) => {
      if (message.type === 'started') {
        child.running = true;
        settle?.(undefined, message.ports);
      } else if (message.type === 'failed') settle?.(message.config ? new ConfigError(message.message) : new Error(`${name} could not start: ${message.message}`));
      else if (message.type === 'release-port') void grpcPort?.release().then(() => {
        if (proc.connected) proc.send(PORT_RELEASED_MESSAGE);
      });
    });
    if (publicServer) proc.send(PUBLIC_SERVER_MESSAGE, publicServer);
    return started;
  }

  /** Stops every child, the last stage first (the gateway before the services it calls). */
  stop(): Promise<void> {
    return (this.stopping ??= this.stopAll());
  }

  private async stopAll(): Promise<void> {
    const stages = [...new Set(this.children.map((c) => c.stage))].sort((a, b) => b - a);
    for (const stage of stages) await Promise.all(this.children.filter((c) => c.stage === stage).map((c) => this.stopChild(c)));
    process.off('exit', this.killAll);
  }

  private async stopChild(child: Child): Promise<void> {
    if (!alive(child.process)) return child.exited;
    // Stopping githost stops haproxy first: no replica needs its drain delay (child.ts), so the
    // message asks for none before SIGTERM arrives (which then finds the child stopping already).
    await new Promise<void>((resolve) => {
      if (!child.process.connected) return resolve();
      try {
        child.process.send(STOP_NOW_MESSAGE, () => resolve());
      } catch {
        resolve();
      }
    });
    if (alive(child.process)) child.process.kill('SIGTERM');
    const timer = setTimeout(() => {
      this.logger.error({ child: child.name, pid: child.process.pid }, `${child.name} did not stop within ${STOP_GRACE_MS / 1000} s: killed`);
      child.process.kill('SIGKILL');
    }, STOP_GRACE_MS);
    await child.exited;
    clearTimeout(timer);
  }

  private crash(child: Child, code: number | null, signal: NodeJS.Signals | null): void {
    const how = exitDescription(code, signal);
    if (this.replicated.has(child.module)) {
      child.running = false;
      const others = this.children.filter((c) => c.module === child.module && c.running && alive(c.process));
      if (others.length > 0) {
        this.logger.error({ child: child.name, pid: child.process.pid, code, signal, still_running: others.map((c) => c.name) }, `replica ${child.name} exited unexpectedly (${how}): haproxy takes it out, the other replicas serve`);
        return;
      }
    }
    this.logger.error({ child: child.name, pid: child.process.pid, code, signal }, `service process ${child.name} exited unexpectedly (${how}): stopping githost`);
    void this.stop().then(() => this.reportCrash(new Error(`${child.name} (pid ${child.process.pid}) exited unexpectedly (${how})`)));
  }
}

function alive(proc: ChildProcess): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}

function exitDescription(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `code ${code}`;
}
