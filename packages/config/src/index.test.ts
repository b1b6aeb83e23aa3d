import { describe, expect, it } from '@jest/globals';
import { ConfigError, env, loadConfig, z } from './index.js';

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
