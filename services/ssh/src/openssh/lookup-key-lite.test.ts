import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { notFound } from '@githost/errors';
import { startGrpcServer, unary, type GrpcListening } from '@githost/grpc';
import { accountsProto, type accounts, type AccountsServiceHandlers } from '@githost/protos';
import { lookupKeyByFingerprint } from './lookup-key-lite.js';

const secret = 'openssh-mode-test-internal-secret';
const asked: accounts.LookupSshKeyRequest__Output[] = [];

/** The answers accounts gives, full messages as the real service writes them (nested user and
 *  repository included), so the hand decoder must skip what it does not read. */
function answerOf(fingerprint: string): accounts.LookupSshKeyResponse {
  if (fingerprint === 'SHA256:user') return { outcome: 'user', key_id: 7, user: { id: 'u1', username: 'alice', email: 'a@example.com', is_admin: true }, read_only: false };
  if (fingerprint === 'SHA256:deploy') return { outcome: 'deploy_key', key_id: 2 ** 40 + 3, repository: { id: 'r1', owner: 'alice', name: 'demo', default_branch: 'main', private: true, shard: 'default', description: 'd' }, read_only: true };
  if (fingerprint === 'SHA256:broken') throw notFound('no such thing here');
  return { outcome: 'not_found', key_id: 0 };
}

let server: GrpcListening;
let address: string;

beforeAll(async () => {
  server = await startGrpcServer(
    (s) => {
      const handlers: Partial<AccountsServiceHandlers> = {
        LookupSshKey: unary<accounts.LookupSshKeyRequest__Output, accounts.LookupSshKeyResponse>(async (req) => {
          asked.push(req);
          return answerOf(req.fingerprint);
        }),
      };
      s.addService(accountsProto().githost.accounts.v1.AccountsService.service, handlers as AccountsServiceHandlers);
    },
    0,
    '127.0.0.1',
    [],
    secret,
  );
  address = `127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server?.close(0);
});

describe('LookupSshKey over plain http2 (githost-keys)', () => {
  it('when accounts knows the key, then its outcome and id come back, and accounts got the fingerprint in a call it accepted as signed', async () => {
    expect(await lookupKeyByFingerprint(address, secret, 'SHA256:user')).toEqual({ outcome: 'user', keyId: 7 });
    expect(await lookupKeyByFingerprint(address, secret, 'SHA256:deploy')).toEqual({ outcome: 'deploy_key', keyId: 2 ** 40 + 3 });
    expect(await lookupKeyByFingerprint(address, secret, 'SHA256:other')).toEqual({ outcome: 'not_found', keyId: 0 });
    expect(asked.map((r) => r.fingerprint)).toEqual(['SHA256:user', 'SHA256:deploy', 'SHA256:other']);
    expect(asked[0]!.key_id).toBe(0);
  });

  it('when the secret is wrong, accounts answers an error status, or nobody listens, then the lookup rejects naming why', async () => {
    await expect(lookupKeyByFingerprint(address, 'another-secret-of-some-length', 'SHA256:user')).rejects.toThrow(/gRPC status 16/);
    await expect(lookupKeyByFingerprint(address, secret, 'SHA256:broken')).rejects.toThrow('accounts answered gRPC status 5: no such thing here');
    await expect(lookupKeyByFingerprint('127.0.0.1:1', secret, 'SHA256:user')).rejects.toThrow(/accounts at 127\.0\.0\.1:1/);
  });
});
