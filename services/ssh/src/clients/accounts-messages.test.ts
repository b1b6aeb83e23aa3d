import { describe, expect, it } from '@jest/globals';
import { accountsProto, type accounts } from '@githost/protos';
import { AUTHORIZE_PATH, decodeAuthorizeResponse, decodeLookupSshKeyResponse, encodeAuthorizeRequest, encodeLookupSshKeyRequest, LOOKUP_SSH_KEY_PATH } from './accounts-messages.js';

/** proto-loader's own (de)serialisers of the real accounts.proto: the contract the hand encoding must match. */
const service = accountsProto().githost.accounts.v1.AccountsService.service;

const repository: accounts.Repository__Output = { id: 'r1', owner: 'alice', name: 'démo', default_branch: 'main', private: true, shard: 'shard-2', description: 'a ☃ repository', owner_id: 'u1', created_at: '2026-11-29T10:00:00.000Z' };

describe('accounts messages against proto-loader (protos/githost/accounts/v1/accounts.proto)', () => {
  it('when the paths are named, then they are the methods of the proto', () => {
    expect([LOOKUP_SSH_KEY_PATH, AUTHORIZE_PATH]).toEqual([service.LookupSshKey.path, service.Authorize.path]);
  });

  it.each([{ fingerprint: 'SHA256:abc+/def' }, { key_id: 2 ** 40 + 3 }, { key_id: 1 }, {}])('when LookupSshKeyRequest %j is encoded, then proto-loader reads the same fields', (req) => {
    expect(service.LookupSshKey.requestDeserialize(encodeLookupSshKeyRequest(req))).toEqual({ fingerprint: req.fingerprint ?? '', key_id: req.key_id ?? 0 });
  });

  it('when an AuthorizeRequest is encoded, then proto-loader reads every field', () => {
    const req = { user_id: 'u1', bootstrap_admin: true, owner: 'alice', name: 'demo', without_site_admin: true };
    expect(service.Authorize.requestDeserialize(encodeAuthorizeRequest(req))).toEqual(req);
    expect(service.Authorize.requestDeserialize(encodeAuthorizeRequest({ user_id: '', owner: 'a', name: 'b', without_site_admin: false }))).toEqual({ user_id: '', bootstrap_admin: false, owner: 'a', name: 'b', without_site_admin: false });
  });

  it.each<accounts.LookupSshKeyResponse__Output>([
    { outcome: 'user', key_id: 7, user: { id: 'u1', username: 'alice', email: 'a@example.com', is_admin: true }, repository: null, read_only: false },
    { outcome: 'deploy_key', key_id: 2 ** 40 + 3, user: null, repository, read_only: true },
    { outcome: 'not_found', key_id: 0, user: null, repository: null, read_only: false },
  ])('when proto-loader writes LookupSshKeyResponse %#, then it decodes to what proto-loader reads', (res) => {
    const bytes = service.LookupSshKey.responseSerialize(res);
    expect(decodeLookupSshKeyResponse(bytes)).toEqual(service.LookupSshKey.responseDeserialize(bytes));
    expect(decodeLookupSshKeyResponse(bytes)).toEqual(res);
  });

  it('when proto-loader writes an AuthorizeResponse, then it decodes to what proto-loader reads', () => {
    for (const res of [{ repository, permission: 'write' }, { repository: null, permission: '' }]) {
      const bytes = service.Authorize.responseSerialize(res);
      expect(decodeAuthorizeResponse(bytes)).toEqual(service.Authorize.responseDeserialize(bytes));
    }
  });

  it('when an answer carries fields this service does not know (a newer accounts), then they are skipped', () => {
    // field 15 varint, field 16 fixed64, field 17 length-delimited, then outcome.
    const unknown = Buffer.concat([Buffer.from([0x78, 0x05, 0x81, 0x01]), Buffer.alloc(8), Buffer.from([0x8a, 0x01, 0x02, 0x61, 0x62]), Buffer.from([0x0a, 0x04]), Buffer.from('user')]);
    expect(decodeLookupSshKeyResponse(unknown).outcome).toBe('user');
  });
});
