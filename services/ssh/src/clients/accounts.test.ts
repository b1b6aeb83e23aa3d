import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { notFound, validation } from '@githost/errors';
import { startGrpcServer, unary, type GrpcListening } from '@githost/grpc';
import { accountsProto, type accounts, type AccountsServiceHandlers } from '@githost/protos';
import { lookupKeyByFingerprint, sshAccounts, type SshAccounts } from './accounts.js';

const secret = 'openssh-mode-test-internal-secret';
const asked: accounts.LookupSshKeyRequest__Output[] = [];
const authorizeAsked: accounts.AuthorizeRequest__Output[] = [];

const demo = { id: 'r1', owner: 'alice', name: 'demo', default_branch: 'main', private: true, shard: '', description: 'd', owner_id: 'u1', created_at: '2026-11-29T10:00:00.000Z' };

/** The answers accounts gives, full messages as the real service writes them. */
function answerOf(req: accounts.LookupSshKeyRequest__Output): accounts.LookupSshKeyResponse {
  if (req.fingerprint === 'SHA256:user' || req.key_id === 7) return { outcome: 'user', key_id: 7, user: { id: 'u1', username: 'alice', email: 'a@example.com', is_admin: true }, read_only: false };
  if (req.fingerprint === 'SHA256:deploy') return { outcome: 'deploy_key', key_id: 2 ** 40 + 3, repository: demo, read_only: true };
  if (req.fingerprint === 'SHA256:suspended') return { outcome: 'refused', key_id: 9 };
  if (req.fingerprint === 'SHA256:broken') throw notFound('no such thing here');
  return { outcome: 'not_found', key_id: 0 };
}

let server: GrpcListening;
let address: string;
let client: SshAccounts;

beforeAll(async () => {
  server = await startGrpcServer(
    (s) => {
      const handlers: Partial<AccountsServiceHandlers> = {
        LookupSshKey: unary<accounts.LookupSshKeyRequest__Output, accounts.LookupSshKeyResponse>(async (req) => {
          asked.push(req);
          return answerOf(req);
        }),
        Authorize: unary<accounts.AuthorizeRequest__Output, accounts.AuthorizeResponse>(async (req) => {
          authorizeAsked.push(req);
          if (req.name === 'bad..name') throw validation('Invalid repository name');
          if (req.name !== 'demo') throw notFound('Repository not found');
          return { repository: demo, permission: req.user_id === 'u1' ? 'admin' : 'read' };
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
  client = sshAccounts(address, secret);
});

afterAll(async () => {
  client?.close();
  await server?.close(0);
});

describe('accounts over gRPC on node http2, against a grpc-js server of the real proto', () => {
  it('when a user key or a deploy key is looked up, then the caller comes back whole, from a call accounts accepted as signed', async () => {
    expect(await client.callerByFingerprint('SHA256:user', 'req-1')).toEqual({ keyId: '7', kind: 'user', user: { id: 'u1', username: 'alice', email: 'a@example.com', is_admin: true } });
    expect(await client.callerByFingerprint('SHA256:deploy', 'req-2')).toEqual({
      keyId: String(2 ** 40 + 3),
      kind: 'deploy_key',
      repository: { id: 'r1', owner: 'alice', name: 'demo', default_branch: 'main', private: true, shard: 'default', owner_id: 'u1' },
      readOnly: true,
    });
    expect(await client.callerByKeyId(7, 'req-3')).toEqual(expect.objectContaining({ keyId: '7', kind: 'user' }));
    expect(asked.slice(-3).map((r) => [r.fingerprint, r.key_id])).toEqual([
      ['SHA256:user', 0],
      ['SHA256:deploy', 0],
      ['', 7],
    ]);
  });

  it('when the key is unknown or its user suspended, then nobody', async () => {
    expect(await client.callerByFingerprint('SHA256:other', 'req-4')).toBeNull();
    expect(await client.callerByFingerprint('SHA256:suspended', 'req-5')).toBeNull();
  });

  it('when a repository is authorised, then its fields and the permission; a missing or malformed one is null', async () => {
    const alice = { user_id: 'u1', username: 'alice', email: '', is_admin: false };
    expect(await client.authorize(alice, 'alice', 'demo', 'req-6')).toEqual({ id: 'r1', owner: 'alice', name: 'demo', default_branch: 'main', private: true, shard: 'default', owner_id: 'u1', permission: 'admin' });
    expect(authorizeAsked.at(-1)).toEqual({ user_id: 'u1', bootstrap_admin: false, owner: 'alice', name: 'demo', without_site_admin: true });
    expect(await client.authorize(alice, 'alice', 'missing', 'req-7')).toBeNull();
    expect(await client.authorize(alice, 'alice', 'bad..name', 'req-8')).toBeNull();
  });

  it('when accounts answers an error status, then the AppError of its code with its message', async () => {
    await expect(client.callerByFingerprint('SHA256:broken', 'req-9')).rejects.toMatchObject({ kind: 'not_found', message: 'no such thing here' });
  });

  it('when the secret is wrong, then accounts refuses the call as unauthenticated', async () => {
    const other = sshAccounts(address, 'another-secret-of-some-length');
    try {
      await expect(other.callerByFingerprint('SHA256:user', 'req-10')).rejects.toMatchObject({ kind: 'unauthenticated' });
    } finally {
      other.close();
    }
  });

  it('when accounts listens, then it is reachable; when nobody does, then not, and a call is unavailable', async () => {
    expect(await client.reachable()).toBe(true);
    const nobody = sshAccounts('127.0.0.1:1', secret);
    try {
      expect(await nobody.reachable()).toBe(false);
      await expect(nobody.callerByFingerprint('SHA256:user', 'req-11')).rejects.toMatchObject({ kind: 'unavailable' });
    } finally {
      nobody.close();
    }
  });
});

describe('lookupKeyByFingerprint (githost-keys, a connection per lookup)', () => {
  it('when accounts knows the key, then its outcome and id come back', async () => {
    expect(await lookupKeyByFingerprint(address, secret, 'SHA256:user')).toEqual({ outcome: 'user', keyId: 7 });
    expect(await lookupKeyByFingerprint(address, secret, 'SHA256:deploy')).toEqual({ outcome: 'deploy_key', keyId: 2 ** 40 + 3 });
    expect(await lookupKeyByFingerprint(address, secret, 'SHA256:other')).toEqual({ outcome: 'not_found', keyId: 0 });
  });

  it('when the secret is wrong, accounts answers an error status, or nobody listens, then the lookup rejects naming why', async () => {
    await expect(lookupKeyByFingerprint(address, 'another-secret-of-some-length', 'SHA256:user')).rejects.toMatchObject({ kind: 'unauthenticated' });
    await expect(lookupKeyByFingerprint(address, secret, 'SHA256:broken')).rejects.toThrow('no such thing here');
    await expect(lookupKeyByFingerprint('127.0.0.1:1', secret, 'SHA256:user')).rejects.toThrow(/accounts at 127\.0\.0\.1:1/);
  });
});
