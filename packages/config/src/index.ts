import { z } from 'zod';
import { ConfigError } from './errors.js';

export { z };
export { ConfigError, bindingPort, portProblem } from './errors.js';

/**
 * Reads a service's configuration from the environment against a zod schema. A bad value stops
 * the process at boot with a message naming every offending variable, instead of failing later.
 */
export function loadConfig<S extends z.ZodType>(service: string, schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`).join('\n');
    throw new ConfigError(`${service}: invalid configuration:\n${problems}`);
  }
  return result.data;
}


/**
 * Blank means unset: an empty or all-space value (`FOO=` in a .env file, an empty value in a
 * manifest) is read as absent, so it gets the default instead of failing validation.
 */
export function unlessBlank<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema);
}

const httpUrlShape = () => z.string().url().regex(/^https?:\/\//, 'expected an http:// or https:// URL');

/** A variable that may be left unset (or blank). */
function optional<T extends z.ZodType>(schema: T) {
  return unlessBlank(schema.optional());
}

/**
 * Common variable shapes, so every service spells them the same way. A service's schema reads the
 * variables with these and transforms them into its camelCase `Config`.
 */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  /** METRICS_PORT: Prometheus `GET /metrics` on a listener of its own, never the public port
   *  (CONTRACT §8); 0 picks a free one. 9464 is the usual Prometheus exporter port. */
  metricsPort: () => unlessBlank(env.port(9464)),
  int: (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback),
  optional,
  /** A non-empty name: an exchange, a queue. */
  name: (fallback: string) => z.string().min(1).default(fallback),
  url: () => z.string().url(),
  optionalUrl: () => optional(z.string().url()),
  /** An http:// or https:// address (another service's, the public one); blank takes `fallback`. */
  httpUrl: (fallback: string) => unlessBlank(httpUrlShape().default(fallback)),
  /** An http:// or https:// address that may be left unset (or blank). */
  optionalHttpUrl: () => optional(httpUrlShape()),
  /** DATA_DIR: repositories, the event journal, embedded (PGlite) databases. */
  dataDir: () => z.string().min(1).default('./data'),
  /** DATABASE_URL: a real Postgres; unset means PGlite under DATA_DIR. */
  databaseUrl: () => optional(z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')),
  /** AMQP_URL: RabbitMQ; unset means the in-process bus. */
  amqpUrl: () => optional(z.string().regex(/^amqps?:\/\//, 'expected an amqp:// URL')),
  /** GITHOST_EVENTS_EXCHANGE: the topic exchange every event goes through. */
  eventsExchange: () => env.name('githost.events'),
  /** Interface to listen on: 0.0.0.0 standalone; the launcher binds internal services to 127.0.0.1
   *  because their gRPC ports trust every caller. */
  bindHost: () => z.string().regex(/^[\w.:-]+$/, 'expected an IP address or host name').default('0.0.0.0'),
  /** `host:port` of a gRPC server. */
  address: () => z.string().regex(/^[^\s:]+:\d+$/, 'expected host:port'),
  /** The secret shared by the gateway and the services to sign forwarded identities. */
  internalSecret: () => z.string().min(16, 'must be at least 16 characters'),
};

/** The listening and trust variables every service reads alike, with `defaultHttpPort` its own. */
export function serviceListenEnv(defaultHttpPort: number) {
  return { HTTP_PORT: env.port(defaultHttpPort), METRICS_PORT: env.metricsPort(), BIND_HOST: env.bindHost(), GITHOST_INTERNAL_SECRET: env.internalSecret() };
}

/** serviceListenEnv's variables as the camelCase fields of a service's Config. */
export function serviceListenFields(e: { HTTP_PORT: number; METRICS_PORT: number; BIND_HOST: string; GITHOST_INTERNAL_SECRET: string }) {
  return { httpPort: e.HTTP_PORT, metricsPort: e.METRICS_PORT, bindHost: e.BIND_HOST, internalSecret: e.GITHOST_INTERNAL_SECRET };
}

/** Where a service with a database keeps it: DATA_DIR and DATABASE_URL. */
export function databaseEnv() {
  return { DATA_DIR: env.dataDir(), DATABASE_URL: env.databaseUrl() };
}

/** databaseEnv's variables as Config fields; `databaseUrl` unset means PGlite under `DATA_DIR/db/<service>`. */
export function databaseFields(e: { DATA_DIR: string; DATABASE_URL?: string | undefined }) {
  return { dataDir: e.DATA_DIR, databaseUrl: e.DATABASE_URL };
}

/** The event bus a service publishes to or consumes from: AMQP_URL and GITHOST_EVENTS_EXCHANGE. */
export function eventBusEnv() {
  return { AMQP_URL: env.amqpUrl(), GITHOST_EVENTS_EXCHANGE: env.eventsExchange() };
}

/** eventBusEnv's variables as Config fields; `amqpUrl` unset means the in-process bus. */
export function eventBusFields(e: { AMQP_URL?: string | undefined; GITHOST_EVENTS_EXCHANGE: string }) {
  return { amqpUrl: e.AMQP_URL, eventsExchange: e.GITHOST_EVENTS_EXCHANGE };
}

/** Where rate-limit counters are kept (docs/decisions/shared-rate-limits.md): REDIS_URL (a Redis or
 *  Valkey; unset: each process counts its own) and GITHOST_RATE_LIMIT_PREFIX, put before every key. */
export function rateLimitStoreEnv() {
  return {
    REDIS_URL: optional(z.string().regex(/^rediss?:\/\/\S+$/, 'expected a redis:// or rediss:// URL')),
    GITHOST_RATE_LIMIT_PREFIX: unlessBlank(z.string().regex(/^[\w:.-]{1,64}$/, 'expected up to 64 letters, digits, _ : . -').default('githost:rl:')),
  };
}

/** rateLimitStoreEnv's variables as Config fields. */
export function rateLimitStoreFields(e: { REDIS_URL?: string | undefined; GITHOST_RATE_LIMIT_PREFIX: string }) {
  return { rateLimitStore: { url: e.REDIS_URL, prefix: e.GITHOST_RATE_LIMIT_PREFIX } };
}
