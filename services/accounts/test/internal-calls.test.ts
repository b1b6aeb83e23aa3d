import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { grpc } from '@githost/grpc';
import { INTERNAL_CALL_METADATA, signInternalCall } from '@githost/identity';
import { accountsProto, type AccountsServiceClient } from '@githost/protos';
import { ADMIN_TOKEN, Client, SECRET, startAccounts, type Harness } from './harness.js';
import { startFakeStorage, type FakeStorage } from './fake-storage.js';
import { rpc } from './rpc.js';

const AUTHORIZE = '/githost.accounts.v1.AccountsService/Authorize';

describe('internal gRPC calls to accounts', () => {
  let storage: FakeStorage;
  let h: Harness;
  /** Signs nothing by itself: each test decides what credential, if any, the call carries. */
  let raw: AccountsServiceClient;

  beforeAll(async () => {
    storage = await startFakeStorage();
    h = await startAccounts('postgres', storage.address);
    const admin = new Client(h, ADMIN_TOKEN);
    expect((await admin.request('POST', '/api/admin/users', { username: 'pat', email: 'pat@example.test' })).status).toBe(201);
    const pat = new Client(h, (await admin.request('POST', '/api/admin/users/pat/tokens', {})).body.token);
    expect((await pat.request('POST', '/api/repos', { name: 'hidden', private: true })).status).toBe(201);
    raw = new (accountsProto().githost.accounts.v1.AccountsService)(h.grpcAddress, grpc.credentials.createInsecure());
  });

  afterAll(async () => {
    raw?.close();
    await h?.close();
    await storage?.close();
  });

  /** Authorize as the bootstrap admin on pat's private repository: what a local attacker would send. */
  const authorizeAsAdmin = (value?: string) => {
    const metadata = new grpc.Metadata();
    if (value !== undefined) metadata.set(INTERNAL_CALL_METADATA, value);
    return new Promise<{ code: number; permission?: string }>((resolve) =>
      raw.Authorize({ user_id: '', bootstrap_admin: true, owner: 'pat', name: 'hidden' }, metadata, (err, res) => resolve(err ? { code: err.code } : { code: grpc.status.OK, permission: res?.permission })),
    );
  };

  it('when Authorize with bootstrap_admin comes without a credential, or with a forged, expired or other-method one, then it is UNAUTHENTICATED', async () => {
    expect(await authorizeAsAdmin()).toEqual({ code: grpc.status.UNAUTHENTICATED });
    expect(await authorizeAsAdmin(signInternalCall(AUTHORIZE, 'a-forged-secret-of-some-length'))).toEqual({ code: grpc.status.UNAUTHENTICATED });
    expect(await authorizeAsAdmin(signInternalCall(AUTHORIZE, SECRET, Date.now() - 10 * 60_000))).toEqual({ code: grpc.status.UNAUTHENTICATED });
    expect(await authorizeAsAdmin(signInternalCall('/githost.accounts.v1.AccountsService/GetRefPolicy', SECRET))).toEqual({ code: grpc.status.UNAUTHENTICATED });
  });

  it('when GetUsers comes without a credential, then no e-mail address is given out', async () => {
    const res = await new Promise<{ code: number; users?: unknown[] }>((resolve) =>
      raw.GetUsers({ ids: [], usernames: ['pat'] }, new grpc.Metadata(), (err, r) => resolve(err ? { code: err.code } : { code: grpc.status.OK, users: r?.users })),
    );
    expect(res).toEqual({ code: grpc.status.UNAUTHENTICATED });
  });

  it('when Authorize is signed for its method with the internal secret, then it answers', async () => {
    expect(await authorizeAsAdmin(signInternalCall(AUTHORIZE, SECRET))).toEqual({ code: grpc.status.OK, permission: 'admin' });
    // The harness's client, made by createAccountsClient, signs by itself.
    await expect(rpc(h.grpc).authorize({ user_id: '', bootstrap_admin: true, owner: 'pat', name: 'hidden' })).resolves.toMatchObject({ permission: 'admin' });
  });
});
