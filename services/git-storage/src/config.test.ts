import { describe, expect, it } from '@jest/globals';
import { loadConfig } from './config.js';

const SECRET = 'a-secret-of-enough-length';

describe('loadConfig', () => {
  it('when only the secret is set, then the documented defaults apply', () => {
    expect(loadConfig({ GITHOST_INTERNAL_SECRET: SECRET })).toEqual({
      DATA_DIR: './data',
      HTTP_PORT: 3101,
      GRPC_PORT: 3102,
      BIND_HOST: '0.0.0.0',
      GITHOST_INTERNAL_SECRET: SECRET,
      AMQP_URL: undefined,
      GITHOST_EVENTS_EXCHANGE: 'githost.events',
    });
  });

  it('when a value is bad, then start-up stops with a message naming it', () => {
    expect(() => loadConfig({ GITHOST_INTERNAL_SECRET: 'short' })).toThrow(/GITHOST_INTERNAL_SECRET/);
    expect(() => loadConfig({ GITHOST_INTERNAL_SECRET: SECRET, GRPC_PORT: '70000' })).toThrow(/GRPC_PORT/);
    expect(() => loadConfig({ GITHOST_INTERNAL_SECRET: SECRET, HTTP_PORT: 'abc' })).toThrow(/HTTP_PORT/);
  });

  it('when AMQP_URL is empty, then it counts as unset', () => {
    expect(loadConfig({ GITHOST_INTERNAL_SECRET: SECRET, AMQP_URL: '' }).AMQP_URL).toBeUndefined();
  });
});
