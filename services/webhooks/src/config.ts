import { env, loadConfig as load, z } from '@githost/config';

const schema = z.object({
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: env.optionalUrl(),
  HTTP_PORT: env.port(3501),
  BIND_HOST: env.bindHost(),
  GITHOST_INTERNAL_SECRET: env.internalSecret(),
  AMQP_URL: env.optionalUrl(),
  GITHOST_EVENTS_EXCHANGE: z.string().min(1).default('githost.events'),
  GITHOST_WEBHOOKS_QUEUE: z.string().min(1).default('githost.webhooks'),
  GITHOST_WEBHOOK_ALLOW_PRIVATE: env.bool(false),
  GITHOST_WEBHOOK_MAX_ATTEMPTS: env.int(6, 1),
  GITHOST_WEBHOOK_RETRY_BASE_MS: env.int(10_000, 1),
  GITHOST_WEBHOOK_TIMEOUT_MS: env.int(10_000, 1),
  /** Deliveries sent at once by one process (sending waits on receivers, not on the CPU). */
  GITHOST_WEBHOOK_CONCURRENCY: env.int(64, 1),
  /** How often due retries are looked for when nothing woke the worker sooner. */
  GITHOST_WEBHOOK_POLL_MS: env.int(1000, 10),
});

export type Config = z.infer<typeof schema>;

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('webhooks', schema, environment);
}
