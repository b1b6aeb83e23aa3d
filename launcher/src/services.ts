import type { Server } from 'node:http';
import type { EventBus } from '@githost/bus';
import type { MetricsEndpoint } from '@githost/http';
import type { Logger } from '@githost/logging';
import type { ServiceModule } from '@githost/runtime';

/**
 * The services the launcher runs, in start order: each one's addresses go into the environment
 * the later ones are configured from (accounts needs git-storage's gRPC address; the gateway
 * needs everybody). The one address needed the other way round (git-storage -> accounts) is a
 * reserved port (`reserveGrpcPort`). Every package's index is a `ServiceModule`.
 */

/** What the launcher hands every service: its logger, and the shared bus (the services) or the
 *  already bound public server (the gateway); in one process, the one /metrics listener. */
export interface LaunchDeps {
  logger: Logger;
  bus?: EventBus;
  server?: Server;
  metricsEndpoint?: MetricsEndpoint;
}

export type LaunchedModule = ServiceModule<unknown, LaunchDeps>;

export interface ServiceEntry {
  name: string;
  load(): Promise<LaunchedModule>;
  /** Environment variables other services read to reach this one. */
  exports(ports: { httpPort?: number; grpcPort?: number }): Record<string, string>;
  /** An earlier stage needs this service's gRPC address too (git-storage reads accounts' protection
   *  rules, accounts needs git-storage): its gRPC port is reserved before any service starts. */
  reserveGrpcPort?: boolean;
}

// Named through a variable so the compiler does not follow it: the web's JSX types (preact) bring
// the DOM's declarations, which would change `fetch` and friends for every workspace that compiles
// the launcher. asServiceModule checks what is loaded, as for every package.
const WEB_PACKAGE: string = '@githost/web';

const local = (port: number | undefined, scheme = '') => (port ? `${scheme}127.0.0.1:${port}` : undefined);

function defined(vars: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(vars).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Start stages: a stage needs the addresses of the stages before it; the services within one
 *  stage need nothing of each other and start together (each opens its own database, which is
 *  most of the start-up time). */
export const STAGES: ServiceEntry[][] = [
  [
    {
      name: 'git-storage',
      load: () => import('@githost/git-storage'),
      exports: (p) => defined({ GIT_STORAGE_GRPC_ADDR: local(p.grpcPort), GIT_STORAGE_HTTP_URL: local(p.httpPort, 'http://') }),
    },
  ],
  [
    {
      name: 'accounts',
      load: () => import('@githost/accounts'),
      reserveGrpcPort: true,
      exports: (p) => defined({ ACCOUNTS_GRPC_ADDR: local(p.grpcPort), ACCOUNTS_HTTP_URL: local(p.httpPort, 'http://') }),
    },
    // Beside accounts: its gRPC address is reserved before any service starts, and the web reads
    // the host keys from SSH_HTTP_URL.
    { name: 'ssh', load: () => import('@githost/ssh'), exports: (p) => defined({ SSH_HTTP_URL: local(p.httpPort, 'http://') }) },
  ],
  [
    { name: 'browse', load: () => import('@githost/browse'), exports: (p) => defined({ BROWSE_URL: local(p.httpPort, 'http://') }) },
    { name: 'merge-requests', load: () => import('@githost/merge-requests'), exports: (p) => defined({ MERGE_REQUESTS_URL: local(p.httpPort, 'http://') }) },
    { name: 'webhooks', load: () => import('@githost/webhooks'), exports: (p) => defined({ WEBHOOKS_URL: local(p.httpPort, 'http://') }) },
    // The pages call the API through the gateway (GATEWAY_URL), at request time only.
    { name: 'web', load: () => import(WEB_PACKAGE), exports: (p) => defined({ WEB_URL: local(p.httpPort, 'http://') }) },
    // Gitea's API (docs/decisions/gitea-api.md): like the web, it calls the API through the gateway.
    { name: 'gitea-api', load: () => import('@githost/gitea-api'), exports: (p) => defined({ GITEA_API_URL: local(p.httpPort, 'http://') }) },
  ],
];

/** The types check every package at build time; this checks what was really loaded (a stale or
 *  broken build), so a service that cannot run fails the start instead of being left out. */
export function asServiceModule(name: string, mod: unknown): LaunchedModule {
  const m = mod as Partial<LaunchedModule> | undefined;
  const missing = (['loadConfig', 'createServer'] as const).filter((f) => typeof m?.[f] !== 'function');
  if (missing.length > 0) throw new Error(`${name}: its package exports no ${missing.join(' and no ')} function: it cannot be started`);
  return m as LaunchedModule;
}

/** A STAGES service's package, or the gateway's (started last, by name). */
function importPackage(module: string): Promise<LaunchedModule> {
  if (module === 'gateway') return import('@githost/gateway');
  const entry = STAGES.flat().find((e) => e.name === module);
  if (!entry) return Promise.reject(new Error(`no service named ${JSON.stringify(module)}`));
  return entry.load();
}

/** `module`'s package, checked to be a service. */
export async function loadService(module: string, load: (module: string) => Promise<unknown> = importPackage): Promise<LaunchedModule> {
  return asServiceModule(module, await load(module));
}
