import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { INTERNAL_CALL_METADATA, signInternalCall } from '@githost/identity';
import { createStorageClient, storageProto, type StorageServiceClient } from '@githost/protos';
import { callUnary, collectStream, grpc, serverStream, startGrpcServer, unary, type GrpcListening } from './index.js';

const SECRET = 'internal-call-test-secret';
const UPDATE_REF = '/githost.storage.v1.StorageService/UpdateRef';
const LIST_REFS = '/githost.storage.v1.StorageService/ListRefs';

describe('internal call credential on a real server', () => {
  let server: GrpcListening;
  let address: string;
  /** Requests the handlers saw: a refused call must never reach one. */
  const seen: string[] = [];
  let signed: StorageServiceClient;
  /** A client that signs nothing itself: the metadata is whatever the test puts in. */
  let raw: StorageServiceClient;

  beforeAll(async () => {
    server = await startGrpcServer((s) => {
      s.addService(storageProto().githost.storage.v1.StorageService.service, {
        UpdateRef: unary(async (req: { ref: string }) => {
          seen.push(`UpdateRef ${req.ref}`);
          return {};
        }),
        ListRefs: unary(async () => {
          seen.push('ListRefs');
          return { refs: [] };
        }),
        ReadBlob: serverStream<unknown, { oid: string }>(async (_req, call) => {
          seen.push('ReadBlob');
          call.write({ oid: 'abc' });
        }),
      });
    }, 0, '127.0.0.1', ['githost.storage.v1.StorageService'], SECRET);
    address = `127.0.0.1:${server.port}`;
    signed = createStorageClient(address, SECRET);
    const Client = storageProto().githost.storage.v1.StorageService;
    raw = new Client(address, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    signed.close();
    raw.close();
    await server.close(100);
  });

  const updateRef = (metadata: grpc.Metadata) =>
    new Promise<{ code: number; details: string }>((resolve) =>
      raw.UpdateRef({ repository_id: 'r', ref: 'refs/heads/evil', new_oid: 'a'.repeat(40), old_oid: '' }, metadata, (err) => resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '' })),
    );
  const withCredential = (value?: string) => {
    const m = new grpc.Metadata();
    if (value !== undefined) m.set(INTERNAL_CALL_METADATA, value);
    return m;
  };

  it('when a call carries no credential, then it is UNAUTHENTICATED and no handler runs', async () => {
    seen.length = 0;
    expect(await updateRef(withCredential())).toEqual({ code: grpc.status.UNAUTHENTICATED, details: 'Missing internal call credential' });
    const status = await collectStream(raw.ReadBlob({ repository_id: 'r', commit_oid: 'c', path: 'x' })).catch((e: unknown) => e);
    expect(status).toMatchObject({ kind: 'unauthenticated', message: 'Missing internal call credential' });
    expect(seen).toEqual([]);
  });

  it('when the credential is forged, expired or signed for another method, then it is UNAUTHENTICATED and no handler runs', async () => {
    seen.length = 0;
    expect(await updateRef(withCredential(signInternalCall(UPDATE_REF, 'another-secret-of-16-chars')))).toEqual({ code: grpc.status.UNAUTHENTICATED, details: 'Invalid internal call credential' });
    expect(await updateRef(withCredential(`${Date.now()}.${'0'.repeat(64)}`))).toEqual({ code: grpc.status.UNAUTHENTICATED, details: 'Invalid internal call credential' });
    expect(await updateRef(withCredential(signInternalCall(UPDATE_REF, SECRET, Date.now() - 5 * 60_000)))).toEqual({ code: grpc.status.UNAUTHENTICATED, details: 'Expired internal call credential' });
    expect(await updateRef(withCredential(signInternalCall(LIST_REFS, SECRET)))).toEqual({ code: grpc.status.UNAUTHENTICATED, details: 'Invalid internal call credential' });
    expect(seen).toEqual([]);
  });

  it('when the credential is valid for the method, then the call is served', async () => {
    seen.length = 0;
    expect(await updateRef(withCredential(signInternalCall(UPDATE_REF, SECRET)))).toEqual({ code: grpc.status.OK, details: '' });
    expect(seen).toEqual(['UpdateRef refs/heads/evil']);
  });

  it('when a client made by createStorageClient calls, unary or streaming, then every call is signed and served', async () => {
    seen.length = 0;
    await expect(callUnary(signed, signed.ListRefs, { repository_id: 'r' })).resolves.toMatchObject({ refs: [] });
    await expect(collectStream(signed.ReadBlob({ repository_id: 'r', commit_oid: 'c', path: 'x' }))).resolves.toMatchObject([{ oid: 'abc' }]);
    expect(seen).toEqual(['ListRefs', 'ReadBlob']);
  });

  it('when a client signs with another secret, then its calls come back as unauthenticated AppErrors', async () => {
    const stranger = createStorageClient(address, 'not-the-internal-secret');
    try {
      await expect(callUnary(stranger, stranger.ListRefs, { repository_id: 'r' })).rejects.toMatchObject({ kind: 'unauthenticated' });
    } finally {
      stranger.close();
    }
  });

  it('when a health check comes without a credential, then it is answered (Kubernetes gRPC probes send none)', async () => {
    const protoLoader = await import('@grpc/proto-loader');
    const { protoPath } = await import('grpc-health-check');
    const def = grpc.loadPackageDefinition(protoLoader.loadSync(protoPath, { enums: String })) as unknown as { grpc: { health: { v1: { Health: new (addr: string, creds: grpc.ChannelCredentials) => grpc.Client & { Check: (req: { service: string }, cb: (err: grpc.ServiceError | null, res?: { status: string }) => void) => void } } } } };
    const health = new def.grpc.health.v1.Health(address, grpc.credentials.createInsecure());
    try {
      const status = await new Promise<string>((resolve, reject) => health.Check({ service: 'githost.storage.v1.StorageService' }, (err, res) => (err ? reject(err) : resolve(res!.status))));
      expect(status).toBe('SERVING');
    } finally {
      health.close();
    }
  });
});
