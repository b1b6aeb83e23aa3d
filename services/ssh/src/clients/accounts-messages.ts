import type { accounts } from '@githost/protos';
import { MessageWriter, readFields } from './protobuf-wire.js';

/**
 * The accounts messages the SSH service sends and reads, by their field numbers in
 * protos/githost/accounts/v1/accounts.proto, typed by the types generated from it. Read as
 * proto-loader reads them for every other service (LOADER_OPTIONS: keepCase, longs as numbers,
 * defaults filled in, an absent message null); fields the proto adds later are skipped.
 * accounts-messages.test.ts checks every field against proto-loader's own encoding.
 */

export const ACCOUNTS_SERVICE = '/githost.accounts.v1.AccountsService';
export const LOOKUP_SSH_KEY_PATH = `${ACCOUNTS_SERVICE}/LookupSshKey`;
export const AUTHORIZE_PATH = `${ACCOUNTS_SERVICE}/Authorize`;

/** LookupSshKeyRequest: fingerprint = 1, key_id = 2. */
export function encodeLookupSshKeyRequest(req: accounts.LookupSshKeyRequest): Buffer {
  return new MessageWriter().string(1, req.fingerprint).uint(2, Number(req.key_id ?? 0)).finish();
}

/** AuthorizeRequest: user_id = 1, bootstrap_admin = 2, owner = 3, name = 4, without_site_admin = 5. */
export function encodeAuthorizeRequest(req: accounts.AuthorizeRequest): Buffer {
  return new MessageWriter().string(1, req.user_id).bool(2, req.bootstrap_admin).string(3, req.owner).string(4, req.name).bool(5, req.without_site_admin).finish();
}

/** User: id = 1, username = 2, email = 3, is_admin = 4. */
function decodeUser(message: Buffer): accounts.User__Output {
  const out: accounts.User__Output = { id: '', username: '', email: '', is_admin: false };
  for (const f of readFields(message)) {
    if (f.field === 1 && f.bytes) out.id = f.bytes.toString('utf8');
    else if (f.field === 2 && f.bytes) out.username = f.bytes.toString('utf8');
    else if (f.field === 3 && f.bytes) out.email = f.bytes.toString('utf8');
    else if (f.field === 4 && f.varint !== undefined) out.is_admin = f.varint !== 0;
  }
  return out;
}

const REPOSITORY_STRINGS = { 1: 'id', 2: 'owner', 3: 'name', 4: 'default_branch', 6: 'shard', 7: 'description', 8: 'owner_id', 9: 'created_at' } as const;

/** Repository: id = 1, owner = 2, name = 3, default_branch = 4, private = 5, shard = 6,
 *  description = 7, owner_id = 8, created_at = 9. */
function decodeRepository(message: Buffer): accounts.Repository__Output {
  const out: accounts.Repository__Output = { id: '', owner: '', name: '', default_branch: '', private: false, shard: '', description: '', owner_id: '', created_at: '' };
  for (const f of readFields(message)) {
    const name = REPOSITORY_STRINGS[f.field as keyof typeof REPOSITORY_STRINGS];
    if (name && f.bytes) out[name] = f.bytes.toString('utf8');
    else if (f.field === 5 && f.varint !== undefined) out.private = f.varint !== 0;
  }
  return out;
}

/** LookupSshKeyResponse: outcome = 1, key_id = 2, user = 3, repository = 4, read_only = 5. */
export function decodeLookupSshKeyResponse(message: Buffer): accounts.LookupSshKeyResponse__Output {
  const out: accounts.LookupSshKeyResponse__Output = { outcome: '', key_id: 0, user: null, repository: null, read_only: false };
  for (const f of readFields(message)) {
    if (f.field === 1 && f.bytes) out.outcome = f.bytes.toString('utf8');
    else if (f.field === 2 && f.varint !== undefined) out.key_id = f.varint;
    else if (f.field === 3 && f.bytes) out.user = decodeUser(f.bytes);
    else if (f.field === 4 && f.bytes) out.repository = decodeRepository(f.bytes);
    else if (f.field === 5 && f.varint !== undefined) out.read_only = f.varint !== 0;
  }
  return out;
}

/** AuthorizeResponse: repository = 1, permission = 2. */
export function decodeAuthorizeResponse(message: Buffer): accounts.AuthorizeResponse__Output {
  const out: accounts.AuthorizeResponse__Output = { repository: null, permission: '' };
  for (const f of readFields(message)) {
    if (f.field === 1 && f.bytes) out.repository = decodeRepository(f.bytes);
    else if (f.field === 2 && f.bytes) out.permission = f.bytes.toString('utf8');
  }
  return out;
}
