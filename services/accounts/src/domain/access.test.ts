import { describe, expect, it } from '@jest/globals';
import { permissionFor } from './access.js';
import type { Caller } from './types.js';

const owner: Caller = { user_id: 'u-owner', username: 'owner', is_admin: false };
const other: Caller = { user_id: 'u-other', username: 'other', is_admin: false };
const siteAdmin: Caller = { user_id: 'u-admin', username: 'root', is_admin: true };
const bootstrap: Caller = { user_id: null, username: '', is_admin: true };
const priv = { owner_id: 'u-owner', private: true };
const pub = { owner_id: 'u-owner', private: false };

describe('CONTRACT §3 permissions', () => {
  it.each([
    ['the owner', owner, priv, null, 'admin'],
    ['a site admin', siteAdmin, priv, null, 'admin'],
    ['the bootstrap admin', bootstrap, priv, null, 'admin'],
    ['a write collaborator', other, priv, 'write', 'write'],
    ['a read collaborator', other, priv, 'read', 'read'],
    ['a stranger', other, priv, null, 'none'],
    ['an anonymous caller', null, priv, null, 'none'],
    ['a stranger', other, pub, null, 'read'],
    ['an anonymous caller', null, pub, null, 'read'],
    ['a write collaborator', other, pub, 'write', 'write'],
  ] as const)('when %s asks, then the permission is as listed (%#)', (_who, caller, repo, collaborator, expected) => {
    expect(permissionFor(repo, caller, collaborator)).toBe(expected);
  });
});
