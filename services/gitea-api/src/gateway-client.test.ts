import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { encodeIdentity, type Identity, type Permission } from '@githost/identity';
import { callerOf, GatewayClient } from './gateway-client.js';

const SECRET = 'test-internal-secret';
const repo = (permission: Permission) => ({ id: 'r1', owner: 'alice', name: 'demo', default_branch: 'main', private: true, shard: 's1', owner_id: 'u1', permission });
const rita = { user_id: 'u2', username: 'Rita', email: 'rita@example.com', is_admin: false };
const signed = (identity: Partial<Identity>, authorization = 'token abc') =>
  ({ headers: { authorization, ...encodeIdentity({ principal: null, repo: null, request_id: 'req-1', issued_at: Date.now(), ...identity }, SECRET) }, query: {} }) as unknown as Request;

describe('callerOf', () => {
  it('when the gateway signed a caller with a repository they may read, then the face knows them by name without asking GET /api/user', () => {
    const caller = callerOf(signed({ principal: rita, repo: repo('read') }), SECRET);
    expect([caller.username, caller.repo?.permission]).toEqual(['Rita', 'read']);
    expect(new GatewayClient('http://gateway', caller).signedUsername).toBe('Rita');
  });

  it('when the repository is not readable, not signed, or the signature is forged, then no caller is named', () => {
    expect(callerOf(signed({ principal: rita, repo: repo('none') }), SECRET).username).toBeUndefined();
    expect(callerOf(signed({ principal: rita, repo: null }), SECRET).username).toBeUndefined();
    expect(callerOf(signed({ principal: rita, repo: repo('write') }), 'another-secret').username).toBeUndefined();
  });
});
