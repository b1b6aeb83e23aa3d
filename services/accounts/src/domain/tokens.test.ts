import { describe, expect, it } from '@jest/globals';
import { authenticateToken, generateToken, hashToken, issueToken, revokeToken, sameSecret } from './tokens.js';
import type { TokenRecord, TokenStore } from './ports.js';
import type { User } from './types.js';

const alice: User = { id: 'u1', username: 'alice', email: 'a@example.test', is_admin: false, suspended_at: null, created_at: '2026-01-01T00:00:00.000Z' };
const noOptions = { name: null, scopes: undefined, expires_at: null };

/** In-memory store, enough to exercise the service's rules. */
function memoryStore(): TokenStore & { rows: Map<string, TokenRecord & { hash: string; revoked: boolean }>; touched: string[] } {
  const rows = new Map<string, TokenRecord & { hash: string; revoked: boolean }>();
  const touched: string[] = [];
  return {
    rows,
    touched,
    async insert(t) {
      const record = { id: t.id, user_id: t.user_id, name: t.name, scopes: t.scopes, created_at: '2026-01-01T00:00:00.000Z', last_used_at: null, expires_at: t.expires_at };
      rows.set(t.id, { ...record, hash: t.token_hash, revoked: false });
      return record;
    },
    async findActive(hash) {
      const row = [...rows.values()].find((r) => r.hash === hash && !r.revoked);
      return row ? { token: row, user: alice } : null;
    },
    async touch(id) {
      touched.push(id);
    },
    async revoke(id, userId) {
      const row = rows.get(id);
      if (!row || row.revoked || (userId !== null && row.user_id !== userId)) return false;
      row.revoked = true;
      return true;
    },
    async listForUser(userId) {
      return [...rows.values()].filter((r) => r.user_id === userId && !r.revoked);
    },
  };
}

describe('tokens', () => {
  it('when tokens are generated, then they carry the prefix, 32 random bytes and differ', () => {
    const a = generateToken();
    expect(a).toMatch(/^ghs_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(4), 'base64url')).toHaveLength(32);
    expect(generateToken()).not.toBe(a);
  });

  it('when a token is hashed, then the hash is sha256 hex of the whole token', () => {
    expect(hashToken('ghs_x')).toBe('9f31e9044fb956c8fffdedbb088eaff39e82c932b6656be715ebea57b32e781f');
    expect(hashToken('ghs_x')).not.toBe(hashToken('ghs_y'));
  });

  it('when secrets are compared, then only equal ones match, whatever their lengths', () => {
    expect(sameSecret('bootstrap-token-123', 'bootstrap-token-123')).toBe(true);
    expect(sameSecret('bootstrap-token-12', 'bootstrap-token-123')).toBe(false);
    expect(sameSecret('', 'bootstrap-token-123')).toBe(false);
  });

  it('when a token is issued, then only its hash is stored and it authenticates once shown', async () => {
    const store = memoryStore();
    const deps = { tokens: store, adminToken: undefined };
    const issued = await issueToken(deps, { id: 'u1', is_admin: false }, { ...noOptions, name: 'cli' });
    const stored = store.rows.get(issued.id)!;
    expect(stored.hash).toBe(hashToken(issued.token));
    expect(JSON.stringify(stored)).not.toContain(issued.token);
    expect(await authenticateToken(deps, issued.token)).toEqual({ kind: 'user', user: alice, scopes: ['read', 'write'], expires_at: null });
    expect(store.touched).toEqual([issued.id]);
  });

  it('when the admin token is configured, then it authenticates as the bootstrap admin and nothing else does', async () => {
    const deps = { tokens: memoryStore(), adminToken: 'configured-admin-token' };
    expect(await authenticateToken(deps, 'configured-admin-token')).toEqual({ kind: 'bootstrap_admin', scopes: ['read', 'write', 'admin'], expires_at: null });
    await expect(authenticateToken(deps, 'configured-admin-token ')).rejects.toThrow('Authentication required');
    await expect(authenticateToken({ tokens: memoryStore(), adminToken: undefined }, 'configured-admin-token')).rejects.toThrow('Authentication required');
  });

  it('when a token is revoked by someone else, then it stays valid; by its owner, then it stops working', async () => {
    const store = memoryStore();
    const deps = { tokens: store, adminToken: undefined };
    const issued = await issueToken(deps, { id: 'u1', is_admin: false }, noOptions);
    await expect(revokeToken(deps, { user_id: 'u2', username: 'bob', is_admin: false }, issued.id)).rejects.toThrow('Token not found');
    await revokeToken(deps, { user_id: 'u1', username: 'alice', is_admin: false }, issued.id);
    await expect(authenticateToken(deps, issued.token)).rejects.toThrow('Authentication required');
  });

  it('when a token is absurdly long, then it is refused before any lookup', async () => {
    const store = memoryStore();
    await expect(authenticateToken({ tokens: store, adminToken: undefined }, 'x'.repeat(10_000))).rejects.toThrow('Authentication required');
  });

  it('when no scopes are asked for, then the token gets all its holder has: admin only for site admins', async () => {
    const deps = { tokens: memoryStore(), adminToken: undefined };
    expect((await issueToken(deps, { id: 'u1', is_admin: false }, noOptions)).scopes).toEqual(['read', 'write']);
    expect((await issueToken(deps, { id: 'u1', is_admin: true }, noOptions)).scopes).toEqual(['read', 'write', 'admin']);
  });

  it('when scopes are asked for, then they are stored closed (write includes read) and expiry kept', async () => {
    const store = memoryStore();
    const deps = { tokens: store, adminToken: undefined };
    const issued = await issueToken(deps, { id: 'u1', is_admin: false }, { name: 'ci', scopes: ['write'], expires_at: '2999-01-01T00:00:00.000Z' });
    expect([issued.scopes, issued.expires_at]).toEqual([['read', 'write'], '2999-01-01T00:00:00.000Z']);
    expect(store.rows.get(issued.id)!.scopes).toEqual(['read', 'write']);
    expect(await authenticateToken(deps, issued.token)).toEqual({ kind: 'user', user: alice, scopes: ['read', 'write'], expires_at: '2999-01-01T00:00:00.000Z' });
    const admin = await issueToken(deps, { id: 'u1', is_admin: true }, { ...noOptions, scopes: ['admin'] });
    expect(admin.scopes).toEqual(['read', 'write', 'admin']);
  });

  it('when a user who is not a site admin asks for the admin scope, then 400 and nothing is stored', async () => {
    const store = memoryStore();
    const deps = { tokens: store, adminToken: undefined };
    await expect(issueToken(deps, { id: 'u1', is_admin: false }, { ...noOptions, scopes: ['read', 'admin'] })).rejects.toThrow('The "admin" scope is only for site admins');
    expect(store.rows.size).toBe(0);
  });
});
