import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '@githost/db';
import { removeBrokerTopology, TEST_AMQP_URL, uniqueTestName } from '@githost/bus/testing';
import { rpc } from './rpc.js';
import { encodeIdentity, type ClientInfo, type Principal, type RepoContext } from '@githost/identity';
import { createAccountsClient, type AccountsServiceClient } from '@githost/protos';
import { singleShard, type ShardMap } from '@githost/storage-router';
import type { Service } from '@githost/runtime';
import { createServer } from '../src/server.js';
import type { Config } from '../src/config.js';
import { DEFAULT_SESSION_SETTINGS, type SessionSettings } from '../src/domain/sessions.js';

export type Backend = 'postgres' | 'pglite';

export const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;
export const SECRET = randomBytes(24).toString('hex');
export const PUBLIC_URL = 'http://git.example.test';

export interface Harness {
  config: Config;
  base: string;
  /** `GET /metrics` on the metrics port. */
  metricsUrl: string;
  grpc: AccountsServiceClient;
  /** host:port of the service's gRPC server. */
  grpcAddress: string;
  /** Opens the database directly (for inspecting what is stored). */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Stops the service and removes its database or directory. */
  close(): Promise<void>;
  /** Restarts the service on the same data (for the PGlite case, the same directory). */
  service: Service;
}

/** Starts the real accounts service on port 0 against real Postgres or PGlite in a temp dir;
 *  `storage` is one git-storage address (shard `default`) or several shards by name. */
export async function startAccounts(backend: Backend, storage: string | ShardMap, opts: { defaultShard?: string; sessions?: Partial<SessionSettings>; clock?: () => number; rabbitmq?: boolean } = {}): Promise<Harness> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'githost-accounts-'));
  const database = backend === 'postgres' ? await createTestDatabase('githost_accounts') : undefined;
  const config: Config = {
    dataDir,
    databaseUrl: database?.url,
    httpPort: 0,
    metricsPort: 0,
    grpcPort: 0,
    bindHost: '127.0.0.1',
    internalSecret: SECRET,
    adminToken: ADMIN_TOKEN,
    storageShards: typeof storage === 'string' ? singleShard(storage) : storage,
    defaultShard: opts.defaultShard,
    publicUrl: PUBLIC_URL,
    // The in-process bus unless a test is about events through the real broker.
    amqpUrl: opts.rabbitmq ? TEST_AMQP_URL : undefined,
    eventsExchange: uniqueTestName('accounts', 'events'),
    eventsQueue: uniqueTestName('accounts', 'queue'),
    sessions: { ...DEFAULT_SESSION_SETTINGS, ...opts.sessions },
  };
  const service = createServer(config, { clock: opts.clock });
  const { httpPort, grpcPort, metricsPort } = await service.start();
  const grpc = createAccountsClient(`127.0.0.1:${grpcPort}`, SECRET);
  const harness: Harness = {
    config,
    base: `http://127.0.0.1:${httpPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    grpc,
    grpcAddress: `127.0.0.1:${grpcPort}`,
    databaseUrl: database?.url,
    dataDir,
    service,
    async close() {
      grpc.close();
      await harness.service.stop();
      // Each run's exchange and queue are its own: leave nothing on the shared broker.
      if (opts.rabbitmq) await removeBrokerTopology(TEST_AMQP_URL, config.eventsExchange, [config.eventsQueue]);
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/**
 * Plays the gateway: authenticates a token over gRPC, resolves owner/repo with Authorize, and
 * forwards the request with the signed identity, as docs/architecture.md#request-flow-and-identity describes.
 */
export class Client {
  constructor(
    private readonly h: Harness,
    readonly token: string | null,
    /** The client address and user agent the gateway would sign. */
    readonly client?: ClientInfo,
  ) {}

  async principal(): Promise<Principal | null> {
    if (!this.token) return null;
    const res = await rpc(this.h.grpc).authenticate({ token: this.token });
    if (res.bootstrap_admin) return { user_id: null, username: 'admin', email: '', is_admin: true };
    const u = res.user!;
    // As the gateway signs it: site-admin powers only with the token's admin scope.
    return { user_id: u.id, username: u.username, email: u.email, is_admin: u.is_admin && res.scopes.includes('admin'), ...(res.session_id ? { session_id: res.session_id } : {}) };
  }

  async repoContext(principal: Principal | null, owner: string, name: string): Promise<RepoContext | null> {
    try {
      const res = await rpc(this.h.grpc).authorize({
        user_id: principal?.user_id ?? '',
        bootstrap_admin: principal !== null && principal.user_id === null,
        without_site_admin: principal !== null && !principal.is_admin,
        owner,
        name,
      });
      const r = res.repository!;
      return { id: r.id, owner: r.owner, name: r.name, default_branch: r.default_branch, private: r.private, shard: r.shard, owner_id: r.owner_id, permission: res.permission as RepoContext['permission'] };
    } catch {
      return null;
    }
  }

  /** As a site admin: creates the user and issues them a token; their id and a client with it. */
  async createUser(username: string, isAdmin = false): Promise<{ id: string; client: Client }> {
    const user = await this.request('POST', '/api/admin/users', { username, email: `${username}@example.test`, is_admin: isAdmin });
    if (user.status !== 201) throw new Error(`creating ${username}: ${user.status} ${JSON.stringify(user.body)}`);
    const token = await this.request('POST', `/api/admin/users/${username}/tokens`, { name: 'test' });
    if (token.status !== 201) throw new Error(`issuing a token for ${username}: ${token.status} ${JSON.stringify(token.body)}`);
    return { id: user.body.id, client: new Client(this.h, token.body.token) };
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async request(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any }> {
    const { status, body: parsed } = await this.requestWithHeaders(method, urlPath, body);
    return { status, body: parsed };
  }

  /** As request(), with the response headers (Link). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async requestWithHeaders(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
    const principal = await this.principal();
    const m = /^\/api\/repos\/([^/]+)\/([^/]+)/.exec(urlPath);
    const repo = m ? await this.repoContext(principal, decodeURIComponent(m[1]!), decodeURIComponent(m[2]!)) : null;
    const headers: Record<string, string> = {
      ...encodeIdentity({ principal, repo, request_id: 'test', issued_at: Date.now(), ...(this.client ? { client: this.client } : {}) }, SECRET),
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.h.base + urlPath, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  }
}
