import type { ServicePorts } from '@githost/runtime';

/*
 * What the launcher and a service process say over IPC, apart from processes.ts, which reads the
 * launcher's configuration: a service process imports only this, so its configuration library
 * is not loaded into every service process (docs/decisions/ssh-server.md#memory).
 */

/** What a service child tells the launcher over IPC, once. */
export type ChildMessage =
  | { type: 'started'; ports: ServicePorts }
  | { type: 'failed'; message: string; config: boolean }
  /** The service is about to bind the gRPC port the launcher holds for it (GITHOST_GRPC_PORT_HELD). */
  | { type: 'release-port' };

/** Sent to the gateway child with the public server's handle, which it serves on. */
export const PUBLIC_SERVER_MESSAGE = 'public-server';

/** Sent to every child when the launcher stops githost: stop without GITHOST_SHUTDOWN_DELAY_MS,
 *  since haproxy, which the delay is for, has stopped first. */
export const STOP_NOW_MESSAGE = 'stop-now';

/** Set in a service process's environment when the launcher holds its GRPC_PORT bound until the
 *  service asks for it ('release-port'): packages/runtime/src/held-ports.ts. */
export const GRPC_PORT_HELD_ENV = 'GITHOST_GRPC_PORT_HELD';

/** The launcher's answer to 'release-port': the port is free to bind. */
export const PORT_RELEASED_MESSAGE = 'port-released';
