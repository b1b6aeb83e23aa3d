import { describe, expect, it } from '@jest/globals';
import { bindingPort, ConfigError, databaseEnv, databaseFields, env, eventBusEnv, eventBusFields, loadConfig, portProblem, rateLimitStoreEnv, rateLimitStoreFields, serviceListenEnv, serviceListenFields, unlessBlank, z } from './index.js';

const schema = z.object({ PORT: env.port(3000), FLAG: env.bool(false), ADDR: env.address().optional() });

describe('loadConfig', () => {
  it('when variables are absent, then defaults apply', () => {
    expect(loadConfig('t', schema, {})).toEqual({ PORT: 3000, FLAG: false });
  });
  it('when variables are set, then they are coerced', () => {
    expect(loadConfig('t', schema, { PORT: '8080', FLAG: 'true', ADDR: 'localhost:50051' })).toEqual({ PORT: 8080, FLAG: true, ADDR: 'localhost:50051' });
  });
  it('when a value is bad, then it stops with a message naming the variable', () => {
    expect(() => loadConfig('svc', schema, { PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig('svc', schema, { PORT: '99999', ADDR: 'nope' })).toThrow(/PORT[\s\S]*ADDR/);
  });
});

describe('env.bindHost', () => {
  const s = z.object({ BIND_HOST: env.bindHost() });
  it('when unset, then services listen on every interface; when set, then on that one', () => {
    expect(loadConfig('t', s, {})).toEqual({ BIND_HOST: '0.0.0.0' });
    expect(loadConfig('t', s, { BIND_HOST: '127.0.0.1' })).toEqual({ BIND_HOST: '127.0.0.1' });
  });
  it('when it is not a host, then start-up stops', () => {
    expect(() => loadConfig('t', s, { BIND_HOST: 'a b;rm' })).toThrow(/BIND_HOST/);
  });
});

describe('env.metricsPort', () => {
  const s = z.object({ METRICS_PORT: env.metricsPort() });
  it('when unset or blank, then 9464; when 0, then a free port is asked for; when not a port, then start-up stops', () => {
    expect([loadConfig('t', s, {}), loadConfig('t', s, { METRICS_PORT: '' }), loadConfig('t', s, { METRICS_PORT: '0' })]).toEqual([{ METRICS_PORT: 9464 }, { METRICS_PORT: 9464 }, { METRICS_PORT: 0 }]);
    expect(() => loadConfig('svc', s, { METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });
});

describe('unlessBlank', () => {
  const s = z.object({ NAME: unlessBlank(z.string().default('fallback')), LIMIT: unlessBlank(z.coerce.number().int().optional()) });
  it('when a variable is empty or only spaces, then it counts as unset and gets its default', () => {
    expect(loadConfig('t', s, { NAME: '', LIMIT: '  ' })).toEqual({ NAME: 'fallback', LIMIT: undefined });
  });
  it('when it has a value, then the value is validated as given', () => {
    expect(loadConfig('t', s, { NAME: 'x', LIMIT: '5' })).toEqual({ NAME: 'x', LIMIT: 5 });
    expect(() => loadConfig('t', s, { LIMIT: 'five' })).toThrow(/LIMIT/);
  });
});

describe('env.databaseUrl', () => {
  const s = z.object({ DATABASE_URL: env.databaseUrl() });
  it('when unset or blank, then there is none (PGlite)', () => {
    expect(loadConfig('t', s, {}).DATABASE_URL).toBeUndefined();
    expect(loadConfig('t', s, { DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });
  it('when it is a postgres URL, then it is used as is', () => {
    expect(loadConfig('t', s, { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/githost' }).DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/githost');
    expect(loadConfig('t', s, { DATABASE_URL: 'postgresql://db/githost' }).DATABASE_URL).toBe('postgresql://db/githost');
  });
  it('when it is any other URL, then start-up stops naming it', () => {
    expect(() => loadConfig('svc', s, { DATABASE_URL: 'mysql://h/db' })).toThrow('svc: invalid configuration:\n  DATABASE_URL: expected a postgres:// URL');
  });
});

describe('env.amqpUrl', () => {
  const s = z.object({ AMQP_URL: env.amqpUrl() });
  it('when unset or blank, then there is none (in-process bus)', () => {
    expect(loadConfig('t', s, {}).AMQP_URL).toBeUndefined();
    expect(loadConfig('t', s, { AMQP_URL: ' ' }).AMQP_URL).toBeUndefined();
  });
  it('when it is an amqp URL, then it is used as is', () => {
    expect(loadConfig('t', s, { AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672' }).AMQP_URL).toBe('amqp://guest:guest@127.0.0.1:5672');
    expect(loadConfig('t', s, { AMQP_URL: 'amqps://mq.example.com' }).AMQP_URL).toBe('amqps://mq.example.com');
  });
  it('when it is not, then start-up stops naming it', () => {
    expect(() => loadConfig('svc', s, { AMQP_URL: 'rabbit:5672' })).toThrow('AMQP_URL: expected an amqp:// URL');
  });
});

describe('env.optionalUrl, env.dataDir, env.eventsExchange, env.name', () => {
  const s = z.object({ URL: env.optionalUrl(), DATA_DIR: env.dataDir(), EXCHANGE: env.eventsExchange(), QUEUE: env.name('githost.q') });
  it('when unset, then the documented defaults apply', () => {
    expect(loadConfig('t', s, { URL: '' })).toEqual({ URL: undefined, DATA_DIR: './data', EXCHANGE: 'githost.events', QUEUE: 'githost.q' });
  });
  it('when set, then the values are used', () => {
    expect(loadConfig('t', s, { URL: 'http://h:1', DATA_DIR: '/srv', EXCHANGE: 'x', QUEUE: 'q' })).toEqual({ URL: 'http://h:1', DATA_DIR: '/srv', EXCHANGE: 'x', QUEUE: 'q' });
  });
  it('when a value is empty or not a URL, then start-up stops naming each', () => {
    expect(() => loadConfig('t', s, { URL: 'not a url', DATA_DIR: '', EXCHANGE: '', QUEUE: '' })).toThrow(/URL[\s\S]*DATA_DIR[\s\S]*EXCHANGE[\s\S]*QUEUE/);
  });
});

describe('rateLimitStoreEnv / rateLimitStoreFields (docs/decisions/shared-rate-limits.md)', () => {
  const schema = z.object(rateLimitStoreEnv()).transform(rateLimitStoreFields);

  it('when unset or blank, then no Redis and the default prefix', () => {
    expect(loadConfig('t', schema, { REDIS_URL: '', GITHOST_RATE_LIMIT_PREFIX: '' })).toEqual({ rateLimitStore: { url: undefined, prefix: 'githost:rl:' } });
  });

  it('when set, then the URL and prefix are used; another scheme or a prefix with spaces stops the start naming each', () => {
    expect(loadConfig('t', schema, { REDIS_URL: 'rediss://:pw@redis.internal:6380/2', GITHOST_RATE_LIMIT_PREFIX: 'ci-1:' })).toEqual({ rateLimitStore: { url: 'rediss://:pw@redis.internal:6380/2', prefix: 'ci-1:' } });
    expect(() => loadConfig('t', schema, { REDIS_URL: 'http://redis:6379', GITHOST_RATE_LIMIT_PREFIX: 'a b' })).toThrow(/REDIS_URL[\s\S]*GITHOST_RATE_LIMIT_PREFIX/);
  });
});

describe('serviceListenEnv / serviceListenFields', () => {
  const schema = z.object(serviceListenEnv(3501)).transform(serviceListenFields);

  it('when only the secret is set, then the service\'s own HTTP port, metrics on 9464, all interfaces', () => {
    expect(schema.parse({ GITHOST_INTERNAL_SECRET: 's'.repeat(16) })).toEqual({ httpPort: 3501, metricsPort: 9464, bindHost: '0.0.0.0', internalSecret: 's'.repeat(16) });
  });

  it('when set, then each variable lands in its field; a short secret is refused', () => {
    expect(schema.parse({ HTTP_PORT: '0', METRICS_PORT: '0', BIND_HOST: '127.0.0.1', GITHOST_INTERNAL_SECRET: 'x'.repeat(20) })).toEqual({ httpPort: 0, metricsPort: 0, bindHost: '127.0.0.1', internalSecret: 'x'.repeat(20) });
    expect(schema.safeParse({ GITHOST_INTERNAL_SECRET: 'short' }).success).toBe(false);
  });
});

describe('databaseEnv / eventBusEnv and their fields', () => {
  const schema = z.object({ ...databaseEnv(), ...eventBusEnv() }).transform((e) => ({ ...databaseFields(e), ...eventBusFields(e) }));

  it('when nothing is set, then ./data, PGlite, the in-process bus and the githost.events exchange', () => {
    expect(schema.parse({})).toEqual({ dataDir: './data', databaseUrl: undefined, amqpUrl: undefined, eventsExchange: 'githost.events' });
  });

  it('when set, then each variable lands in its field; a URL of the wrong scheme is refused', () => {
    expect(schema.parse({ DATA_DIR: '/srv', DATABASE_URL: 'postgres://h/db', AMQP_URL: 'amqp://h', GITHOST_EVENTS_EXCHANGE: 'x' })).toEqual({ dataDir: '/srv', databaseUrl: 'postgres://h/db', amqpUrl: 'amqp://h', eventsExchange: 'x' });
    expect(schema.safeParse({ DATABASE_URL: 'mysql://h/db' }).success).toBe(false);
    expect(schema.safeParse({ AMQP_URL: 'http://h' }).success).toBe(false);
  });
});

describe('portProblem', () => {
  const failure = (code: string) => Object.assign(new Error(`listen ${code} 0.0.0.0:9464`), { code });
  it('when a port is taken or not ours to open, then one ConfigError line names the variable, the port and what to do', async () => {
    expect(portProblem('SSH_PORT', 2222, failure('EADDRINUSE'))).toEqual(new ConfigError('SSH_PORT=2222 is already in use (another githost or another program listens on it): set SSH_PORT to a free port, or SSH_PORT=0 to pick one'));
    expect(portProblem('PORT', 80, failure('EACCES'))).toEqual(new ConfigError('PORT=80 may not be opened by this user (ports below 1024 need privileges): set PORT to a port above 1023, or PORT=0 to pick one'));
    await expect(bindingPort('METRICS_PORT', 9464, () => Promise.reject(failure('EADDRINUSE')))).rejects.toThrow(/^METRICS_PORT=9464 is already in use/);
  });
  it('when a listen fails otherwise, then the failure passes through unchanged', async () => {
    const other = failure('EADDRNOTAVAIL');
    expect(portProblem('PORT', 3000, other)).toBe(other);
    await expect(bindingPort('PORT', 3000, () => Promise.resolve(7))).resolves.toBe(7);
  });
});
