import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { grpc } from '@githost/grpc';
import { INTERNAL_CALL_METADATA, signInternalCall } from '@githost/identity';
import { storageProto, type StorageServiceClient } from '@githost/protos';
import { cleanupWorkdirs, commitAll, createTestRepository, makeWorkdir, pushTo, rpc, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

const ID = 'repo-internal-calls';
const UPDATE_REF = '/githost.storage.v1.StorageService/UpdateRef';
let s: TestStorage;
/** Signs nothing by itself: each test decides what credential, if any, the call carries. */
let raw: StorageServiceClient;
let tip: string;

const refs = () => execFileSync('git', [`--git-dir=${s.repoPath(ID)}`, 'for-each-ref', '--format=%(refname) %(objectname)']).toString();
const credential = (value?: string) => {
  const m = new grpc.Metadata();
  if (value !== undefined) m.set(INTERNAL_CALL_METADATA, value);
  return m;
};
/** UpdateRef creating refs/heads/evil, as a local attacker would try it; resolves with the status code. */
const createBranch = (metadata: grpc.Metadata) =>
  new Promise<number>((resolve) =>
    raw.UpdateRef({ repository_id: ID, ref: 'refs/heads/evil', new_oid: tip, old_oid: '0'.repeat(40), context: { owner: 'alice', name: 'demo', pusher: 'mallory', request_id: 'req-evil' } }, metadata, (err) => resolve(err ? err.code : grpc.status.OK)),
  );

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, ID);
  const work = await makeWorkdir();
  await writeFiles(work, { 'a.txt': 'one\n' });
  tip = await commitAll(work, 'first\n');
  await pushTo(s, ID, work, 'main');
  raw = new (storageProto().githost.storage.v1.StorageService)(s.grpcAddress, grpc.credentials.createInsecure());
});

afterAll(async () => {
  raw.close();
  await s.stop();
  await cleanupWorkdirs();
});

describe('internal gRPC calls to git-storage', () => {
  it('when UpdateRef comes without a credential, or with a forged, expired or other-method one, then it is UNAUTHENTICATED and the ref is not created', async () => {
    const before = refs();
    const events = (await s.service.journal.pending()).length;
    expect(before).toBe(`refs/heads/main ${tip}\n`);
    expect(await createBranch(credential())).toBe(grpc.status.UNAUTHENTICATED);
    expect(await createBranch(credential(signInternalCall(UPDATE_REF, 'a-forged-secret-of-some-length')))).toBe(grpc.status.UNAUTHENTICATED);
    expect(await createBranch(credential(signInternalCall(UPDATE_REF, s.secret, Date.now() - 10 * 60_000)))).toBe(grpc.status.UNAUTHENTICATED);
    expect(await createBranch(credential(signInternalCall('/githost.storage.v1.StorageService/ListRefs', s.secret)))).toBe(grpc.status.UNAUTHENTICATED);
    expect(refs()).toBe(before);
    expect(await s.service.journal.pending()).toHaveLength(events);
  });

  it('when RemoveRepository and ReadBlob come unsigned, then they are refused and the repository is intact', async () => {
    const removed = await new Promise<number>((resolve) => raw.RemoveRepository({ repository_id: ID }, credential(), (err) => resolve(err ? err.code : grpc.status.OK)));
    expect(removed).toBe(grpc.status.UNAUTHENTICATED);
    const read = await new Promise<{ code: number; data: number }>((resolve) => {
      let data = 0;
      const stream = raw.ReadBlob({ repository_id: ID, commit_oid: tip, path: 'a.txt' });
      stream.on('data', () => data++);
      stream.on('error', (err: grpc.ServiceError) => resolve({ code: err.code, data }));
      stream.on('end', () => resolve({ code: grpc.status.OK, data }));
    });
    expect(read).toEqual({ code: grpc.status.UNAUTHENTICATED, data: 0 });
    expect(refs()).toBe(`refs/heads/main ${tip}\n`);
  });

  it('when UpdateRef is signed with the internal secret for its method, then the branch is created', async () => {
    expect(await createBranch(credential(signInternalCall(UPDATE_REF, s.secret)))).toBe(grpc.status.OK);
    expect(refs()).toBe(`refs/heads/evil ${tip}\nrefs/heads/main ${tip}\n`);
    // The client services use signs every call by itself.
    await expect(rpc(s.client, s.client.ListRefs, { repository_id: ID, prefixes: ['refs/heads/'] })).resolves.toMatchObject({ refs: [{ name: 'refs/heads/evil' }, { name: 'refs/heads/main' }] });
  });
});
