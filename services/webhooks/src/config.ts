import { databaseEnv, databaseFields, env, eventBusEnv, eventBusFields, loadConfig as load, serviceListenEnv, serviceListenFields, z } from '@githost/config';

const schema = z
  .object({
    ...databaseEnv(),
    ...serviceListenEnv(3501),
    ...eventBusEnv(),
    GITHOST_WEBHOOKS_QUEUE: env.name('githost.webhooks'),
    GITHOST_WEBHOOK_ALLOW_PRIVATE: env.bool(false),
    GITHOST_WEBHOOK_MAX_ATTEMPTS: env.int(6, 1),
    GITHOST_WEBHOOK_RETRY_BASE_MS: env.int(10_000, 1),
    GITHOST_WEBHOOK_TIMEOUT_MS: env.int(10_000, 1),
    GITHOST_WEBHOOK_CONCURRENCY: env.int(64, 1),
    GITHOST_WEBHOOK_POLL_MS: env.int(1000, 10),
    GITHOST_WEBHOOK_DELIVERY_RETENTION_COUNT: env.int(100, 1),
    GITHOST_WEBHOOK_DELIVERY_RETENTION_DAYS: env.int(7, 1),
    PUBLIC_URL: z.string().url().default('http://localhost:3000'),
  })
  .transform((e) => ({
    ...databaseFields(e),
    ...serviceListenFields(e),
    ...eventBusFields(e),
    /** Durable queue of the events this service delivers. */
    eventsQueue: e.GITHOST_WEBHOOKS_QUEUE,
    /** Deliveries to loopback and private addresses are allowed (tests, trusted networks). */
    allowPrivate: e.GITHOST_WEBHOOK_ALLOW_PRIVATE,
    maxAttempts: e.GITHOST_WEBHOOK_MAX_ATTEMPTS,
    /** First retry delay; later ones grow exponentially, jittered. */
    retryBaseMs: e.GITHOST_WEBHOOK_RETRY_BASE_MS,
    /** Per attempt. */
    timeoutMs: e.GITHOST_WEBHOOK_TIMEOUT_MS,
    /** Deliveries sent at once by one process (sending waits on receivers, not on the CPU). */
    concurrency: e.GITHOST_WEBHOOK_CONCURRENCY,
    /** How often due retries are looked for when nothing woke the worker sooner. */
    pollMs: e.GITHOST_WEBHOOK_POLL_MS,
    /** Retention (docs/decisions/list-paging.md#retention): a finished delivery goes once it is past
     *  its webhook's newest `retentionCount` AND older than `retentionDays`. */
    retentionCount: e.GITHOST_WEBHOOK_DELIVERY_RETENTION_COUNT,
    retentionDays: e.GITHOST_WEBHOOK_DELIVERY_RETENTION_DAYS,
    /** Base of the links gitea and slack payloads carry (docs/decisions/webhook-formats.md). */
    publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
  }));

export type Config = z.output<typeof schema>;

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('webhooks', schema, environment);
}
