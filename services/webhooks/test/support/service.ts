import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { InProcessEventBus, type EventBus, type EventEnvelope } from '@githost/bus';
import { createTestDatabase } from '@githost/db';
import { encodeIdentity, type Identity, type Permission } from '@githost/identity';
import { createServer, loadConfig, type Config } from '../../src/index.js';
import { afterAll, beforeAll } from '@jest/globals';
import { eventually, startReceiver, type Receiver, type ReceiverOptions } from '@githost/test-support';
import { createLogger, currentLogSink, setLogSink } from '@githost/logging';
import type { Delivery, DeliveryDetail } from '@githost/api-types';

export const SECRET = 'test-internal-secret-0123456789';

export interface Caller {
  permission?: Permission;
  anonymous?: boolean;
  repoId?: string;
  private?: boolean;
}

export interface Harness {
  config: Config;
  bus: EventBus;
  base: string;
  /** `GET /metrics` on the metrics port. */
  metricsUrl: string;
  repoId: string;
  call(method: string, path: string, body?: unknown, caller?: Caller): Promise<{ status: number; body: unknown; text: string }>;
  /** Publishes an event (default: about the harness repository, happening now, with a new id). */
  publish(kind: string, payload: unknown, opts?: PublishOptions): Promise<EventEnvelope>;
  /** The service's warning and error log lines so far (a failing wait prints the last ones). */
  warnings(): string[];
  restart(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

export interface PublishOptions {
  repoId?: string;
  occurredAt?: string;
  id?: string;
}

export interface HarnessOptions {
  database?: 'postgres' | 'pglite';
  env?: Record<string, string>;
  /** 'from-config': the service builds its own bus from AMQP_URL, as main.ts does. */
  bus?: EventBus | 'from-config';
}

/** The real service on port 0 against a fresh database (real Postgres unless told PGlite). */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'githost-webhooks-'));
  const testDb = opts.database === 'pglite' ? undefined : await createTestDatabase('githost_webhooks');
  const config = loadConfig({
    DATA_DIR: dataDir,
    HTTP_PORT: '0',
    METRICS_PORT: '0',
    GITHOST_INTERNAL_SECRET: SECRET,
    GITHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
    GITHOST_WEBHOOK_RETRY_BASE_MS: '20',
    GITHOST_WEBHOOK_TIMEOUT_MS: '2000',
    GITHOST_WEBHOOK_POLL_MS: '50',
    ...(testDb ? { DATABASE_URL: testDb.url } : {}),
    ...opts.env,
  });
  const bus = opts.bus === undefined || opts.bus === 'from-config' ? new InProcessEventBus() : opts.bus;
  // The service's warnings are kept for a failing wait to print, unless the test collects the
  // log lines itself through a sink of its own.
  const warnings: string[] = [];
  const testSink = currentLogSink();
  if (!testSink) setLogSink({ destination: { write: (line: string) => void warnings.push(line.trimEnd()) }, level: 'warn' });
  const logger = createLogger('webhooks');
  if (!testSink) setLogSink(undefined);
  const serviceDeps = opts.bus === 'from-config' ? { logger } : { bus, logger };
  const repoId = randomUUID();
  let service = createServer(config, serviceDeps);
  let ports = await service.start();
  let base = `http://127.0.0.1:${ports.httpPort}`;
  let running = true;

  const identity = (caller: Caller): Identity => ({
    principal: caller.anonymous ? null : { user_id: 'u1', username: 'alice', email: 'alice@example.com', is_admin: false },
    repo: {
      id: caller.repoId ?? repoId,
      owner: 'alice',
      name: 'project',
      default_branch: 'main',
      private: caller.private ?? false,
      shard: 'default',
      permission: caller.permission ?? 'write',
      owner_id: 'u1',
    },
    request_id: randomUUID(),
    issued_at: Date.now(),
  });

  const harness: Harness = {
    config,
    bus,
    repoId,
    get base() {
      return base;
    },
    get metricsUrl() {
      return `http://127.0.0.1:${ports.metricsPort}/metrics`;
    },
    async call(method, path, body, caller = {}) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { ...encodeIdentity(identity(caller), SECRET), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, text };
    },
    warnings: () => [...warnings],
    async publish(kind, payload, p = {}) {
      const event: EventEnvelope = {
        id: p.id ?? randomUUID(),
        kind,
        occurred_at: p.occurredAt ?? new Date().toISOString(),
        repository: { id: p.repoId ?? repoId, owner: 'alice', name: 'project' },
        payload,
      };
      await bus.publish(event);
      return event;
    },
    async restart() {
      if (running) await service.stop();
      service = createServer(config, serviceDeps);
      ports = await service.start();
      base = `http://127.0.0.1:${ports.httpPort}`;
      running = true;
    },
    async stop() {
      if (running) await service.stop();
      running = false;
    },
    async close() {
      await harness.stop();
      if (opts.bus === undefined || opts.bus === 'from-config') await bus.close();
      await testDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** A harness and a receiver for the tests of one describe block: started before them, closed
 *  after. Read them inside a test, once the block's hooks have run. */
export function harnessWithReceiver(harness: HarnessOptions = {}, receiver: ReceiverOptions = {}): { harness: Harness; receiver: Receiver } {
  const started = {} as { harness: Harness; receiver: Receiver };
  beforeAll(async () => {
    started.harness = await startHarness(harness);
    started.receiver = await startReceiver(receiver);
  });
  afterAll(async () => {
    await started.harness?.close();
    await started.receiver?.close();
  });
  return started;
}

export const hooksPath = '/api/repos/alice/project/webhooks';

export async function createHook(h: Harness, body: Record<string, unknown>): Promise<string> {
  const res = await h.call('POST', hooksPath, body);
  if (res.status !== 201) throw new Error(`create webhook: ${res.status} ${res.text}`);
  return (res.body as { id: string }).id;
}

export async function deliveriesOf(h: Harness, hookId: string, repoId?: string): Promise<Delivery[]> {
  const res = await h.call('GET', `${hooksPath}/${hookId}/deliveries`, undefined, repoId ? { repoId } : {});
  if (res.status !== 200) throw new Error(`list deliveries: ${res.status} ${res.text}`);
  return res.body as Delivery[];
}

export async function deliveryDetail(h: Harness, hookId: string, id: string, repoId?: string): Promise<DeliveryDetail> {
  return (await h.call('GET', `${hooksPath}/${hookId}/deliveries/${id}`, undefined, repoId ? { repoId } : {})).body as DeliveryDetail;
}

/** Past one lease (the harness's attempt timeout + 30 s), so a test also settles when an attempt's
 *  record is lost and the delivery is sent again once its lease runs out. */
const SETTLE_MS = 45_000;

/** Waits until the webhook has `count` deliveries and none is pending; when it gives up, the error
 *  names what it last saw, so a failure says whether a delivery was missing, unclaimed or stuck. */
export async function settledDeliveries(h: Harness, hookId: string, count = 1, repoId?: string): Promise<Delivery[]> {
  let last: Delivery[] = [];
  try {
    return await eventually(async () => {
      last = await deliveriesOf(h, hookId, repoId);
      return last.length === count && last.every((d) => d.status !== 'pending') ? last : undefined;
    }, SETTLE_MS);
  } catch {
    // The list does not carry next_attempt_at; a pending delivery's detail does.
    const seen = await Promise.all(
      last.map(async (d) => {
        const detail = d.status === 'pending' ? await deliveryDetail(h, hookId, d.id, repoId) : undefined;
        return { status: d.status, attempts: d.attempts, error: d.error, created_at: d.created_at, next_attempt_at: detail?.next_attempt_at };
      }),
    );
    throw new Error(`expected ${count} settled deliveries at ${new Date().toISOString()}, saw ${last.length}: ${JSON.stringify(seen)}; last warnings: ${h.warnings().slice(-5).join('\n') || 'none'}`);
  }
}
