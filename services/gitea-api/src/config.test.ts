import { describe, expect, it } from '@jest/globals';
import { loadConfig } from './config.js';

const secret = { GITHOST_INTERNAL_SECRET: 'x'.repeat(32) };

describe('gitea-api configuration', () => {
  it('when nothing is set but the secret, then the gateway is the local one and the public address localhost:3000', () => {
    expect(loadConfig(secret)).toMatchObject({ httpPort: 3801, gatewayUrl: 'http://127.0.0.1:3000', publicUrl: 'http://localhost:3000', sshHttpUrl: undefined });
  });
  it('when GATEWAY_URL is not a URL, then the start fails naming it', () => {
    expect(() => loadConfig({ ...secret, GATEWAY_URL: 'gateway:3000' })).toThrow(/GATEWAY_URL/);
  });
  it('when GATEWAY_FALLBACK_URL is set (replicas: every gateway behind the load balancer), then it is kept beside GATEWAY_URL, without a trailing slash; unset, there is none', () => {
    expect(loadConfig({ ...secret, GATEWAY_URL: 'http://127.0.0.1:4001', GATEWAY_FALLBACK_URL: 'http://127.0.0.1:3000/' })).toMatchObject({ gatewayUrl: 'http://127.0.0.1:4001', gatewayFallbackUrl: 'http://127.0.0.1:3000' });
    expect(loadConfig(secret).gatewayFallbackUrl).toBeUndefined();
    expect(() => loadConfig({ ...secret, GATEWAY_FALLBACK_URL: 'ftp://gateway' })).toThrow(/GATEWAY_FALLBACK_URL/);
  });
  it('when PUBLIC_URL ends in a slash, then it is dropped', () => {
    expect(loadConfig({ ...secret, PUBLIC_URL: 'https://git.example.com/' }).publicUrl).toBe('https://git.example.com');
  });
});
