import { z } from 'zod';

export { z };

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

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Common variable shapes, so every service spells them the same way. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  int: (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback),
  url: () => z.string().url(),
  optionalUrl: () =>
    z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v))
      .pipe(z.string().url().optional()),
  /** Interface to listen on: 0.0.0.0 standalone; the launcher binds internal services to 127.0.0.1
   *  because their gRPC ports trust every caller. */
  bindHost: () => z.string().regex(/^[\w.:-]+$/, 'expected an IP address or host name').default('0.0.0.0'),
  /** `host:port` of a gRPC server. */
  address: () => z.string().regex(/^[^\s:]+:\d+$/, 'expected host:port'),
  /** The secret shared by the gateway and the services to sign forwarded identities. */
  internalSecret: () => z.string().min(16, 'must be at least 16 characters'),
};
