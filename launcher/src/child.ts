import { createServer as createHttpServer, type Server } from 'node:http';
import type { Server as NetServer } from 'node:net';
import { ConfigError } from '@githost/config/errors';
import { createLogger } from '@githost/logging';
import { holdUntilBound } from '@githost/runtime/held-ports';
import { drainDelay, markStopping, shutdownDelayMs } from '@githost/runtime/stopping';
import { GRPC_PORT_HELD_ENV, PORT_RELEASED_MESSAGE, PUBLIC_SERVER_MESSAGE, STOP_NOW_MESSAGE, type ChildMessage } from './child-messages.js';
import type { Service } from '@githost/runtime';
import { loadService, type LaunchDeps } from './services.js';

/**
 * One service in its own process (GITHOST_PROCESS_PER_SERVICE), forked by the launcher:
 * `child.js <module> <name>`, configured from its environment like the service's own main.ts,
 * reporting its ports (or why it failed) to the launcher over IPC.
 */
const [moduleName = '', name = moduleName] = process.argv.slice(2);
const send = process.send?.bind(process);
if (!send) {
  process.stderr.write('launcher/child.js is started by the launcher (GITHOST_PROCESS_PER_SERVICE=true), not on its own\n');
  process.exit(2);
}
process.title = `githost ${name}`;
const logger = createLogger(moduleName);
/** Stopping must end even if a service hangs: the launcher may be gone and cannot SIGKILL us. */
const STOP_DEADLINE_MS = 20_000;

const report = (message: ChildMessage): Promise<void> =>
  new Promise((resolve) => {
    try {
      send(message, undefined, undefined, () => resolve());
    } catch {
      resolve(); // the channel closed: the launcher is gone, 'disconnect' stops us
    }
  });

const delay = shutdownDelayMs();
if (typeof delay !== 'number') {
  process.stderr.write(`${delay.error}\n`);
  process.exit(1);
}

let stopping = false;
/** Ends the drain delay early: the launcher's STOP_NOW_MESSAGE after a signal to the whole
 *  process group (Ctrl-C in a terminal) reached this child before it. */
let endDelay: (() => void) | undefined;
/**
 * Stops as every githost process does (docs/operating.md#stopping-a-process): not ready at once,
 * serving for `delayMs` (GITHOST_SHUTDOWN_DELAY_MS; the launcher gives replicas haproxy's time to
 * take them out), then the listener closes and requests in flight finish. The launcher stopping
 * everything has stopped haproxy first, so it asks for no delay (STOP_NOW_MESSAGE).
 */
const stop = async (reason: string, delayMs: number): Promise<void> => {
  if (stopping) {
    if (delayMs === 0) endDelay?.();
    return;
  }
  stopping = true;
  markStopping();
  logger.info({ reason, delay_ms: delayMs }, `${name}: stopping`);
  setTimeout(() => {
    logger.error(`${name}: did not stop within ${STOP_DEADLINE_MS / 1000} s: exiting`);
    process.exit(1);
  }, delayMs + STOP_DEADLINE_MS).unref();
  let code = 0;
  try {
    // A signal while starting waits for the start, so nothing is left half-open.
    const service = await starting.catch(() => undefined);
    const drain = drainDelay(delayMs);
    endDelay = drain.end;
    await drain.elapsed;
    await service?.stop();
  } catch (err) {
    logger.error({ err }, `${name}: did not stop cleanly`);
    code = 1;
  }
  process.exit(code);
};

/** The launcher bound the public port; the gateway serves on the handle it sends. */
function publicServer(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown, handle: unknown): void => {
      if (message !== PUBLIC_SERVER_MESSAGE) return;
      process.off('message', onMessage);
      const server = createHttpServer();
      server.once('error', reject);
      server.listen(handle as NetServer, () => resolve(server));
    };
    process.on('message', onMessage);
  });
}

/** The launcher holds GRPC_PORT bound until this service binds it: asked to free it then, it answers once it has. */
function askForHeldPort(): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown): void => {
      if (message !== PORT_RELEASED_MESSAGE) return;
      process.off('message', onMessage);
      process.off('disconnect', onGone);
      resolve();
    };
    // Gone, the launcher holds nothing any more: the bind says whether the port is free.
    const onGone = (): void => {
      process.off('message', onMessage);
      resolve();
    };
    process.on('message', onMessage);
    process.once('disconnect', onGone);
    void report({ type: 'release-port' });
  });
}

async function start(): Promise<Service> {
  const heldPort = Number(process.env.GRPC_PORT);
  if (process.env[GRPC_PORT_HELD_ENV] === 'true' && heldPort > 0) holdUntilBound(heldPort, askForHeldPort);
  const mod = await loadService(moduleName);
  const deps: LaunchDeps = { logger };
  if (moduleName === 'gateway') deps.server = await publicServer();
  const service = mod.createServer(mod.loadConfig(process.env), deps);
  const ports = await service.start();
  await report({ type: 'started', ports });
  return service;
}

const starting = start();
process.on('SIGTERM', () => void stop('SIGTERM', delay));
process.on('SIGINT', () => void stop('SIGINT', delay));
process.on('disconnect', () => void stop('the launcher is gone (IPC channel closed)', 0));
try {
  await starting;
  // Only once started: a 'message' listener starts reading the IPC channel, and one added sooner
  // would take the public server's handle before publicServer() listens for it. A stop asked for
  // while starting is a SIGTERM's, which waits for the start anyway.
  process.on('message', (message: unknown) => {
    if (message === STOP_NOW_MESSAGE) void stop('the launcher stops githost', 0);
  });
} catch (err) {
  const config = err instanceof ConfigError;
  if (!config) logger.fatal({ err }, `${name} could not start`);
  await report({ type: 'failed', message: err instanceof Error ? err.message : String(err), config });
  process.exit(1);
}
