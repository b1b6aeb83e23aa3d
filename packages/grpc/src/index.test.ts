import { describe, expect, it } from '@jest/globals';
import { AppError, conflict, notFound } from '@githost/errors';
import { fromServiceError, grpc, toServiceError } from './index.js';

const SECRET = 'grpc-test-internal-secret';

describe('gRPC error edges', () => {
  it('when an AppError crosses the wire, then kind, message and details survive', () => {
    const status = toServiceError(conflict('Merge conflict', { conflicts: ['a.txt'] }));
    expect(status.code).toBe(grpc.status.FAILED_PRECONDITION);
    const back = fromServiceError(Object.assign(new Error('x'), status));
    expect(back).toBeInstanceOf(AppError);
    expect([back.kind, back.message, back.details]).toEqual(['conflict', 'Merge conflict', { conflicts: ['a.txt'] }]);
    expect(fromServiceError(Object.assign(new Error('x'), toServiceError(notFound('Branch not found: x')))).kind).toBe('not_found');
  });
  it('when an unknown error crosses, then it is internal and hides its message', () => {
    const status = toServiceError(new Error('disk path /secret'));
    expect([status.code, status.details]).toEqual([grpc.status.INTERNAL, 'Internal server error']);
  });
  it('when the upstream is unreachable, then the client sees unavailable', () => {
    expect(fromServiceError({ code: grpc.status.UNAVAILABLE, details: 'No connection established' }).kind).toBe('unavailable');
  });
});

describe('serverStream over a real connection', () => {
  it('when the handler fails midway, then the client gets the messages so far and then the mapped status', async () => {
    const { startGrpcServer, serverStream } = await import('./index.js');
    const { storageProto, createStorageClient } = await import('@githost/protos');
    const { notFound } = await import('@githost/errors');
    const def = storageProto().githost.storage.v1.StorageService.service;
    const server = await startGrpcServer((s) => {
      s.addService(def, {
        ReadBlob: serverStream<unknown, { oid: string }>(async (_req, call) => {
          call.write({ oid: 'abc' });
          throw notFound('Path not found: x');
        }),
      });
    }, 0, '127.0.0.1', [], SECRET);
    const client = createStorageClient(`127.0.0.1:${server.port}`, SECRET);
    try {
      const got: string[] = [];
      const status = await new Promise<{ code: number; details: string }>((resolve) => {
        const stream = client.ReadBlob({ repository_id: 'r', commit_oid: 'c', path: 'x' });
        stream.on('data', (m: { oid: string }) => got.push(m.oid));
        stream.on('error', (err: { code: number; details: string }) => resolve(err));
      });
      expect(got).toEqual(['abc']);
      expect([status.code, status.details]).toEqual([grpc.status.NOT_FOUND, 'Path not found: x']);
    } finally {
      client.close();
      await server.close(100);
    }
  });
});

describe('startGrpcServer health', () => {
  it('when the server runs, then grpc.health.v1 answers SERVING for the server and named services and NOT_FOUND for others', async () => {
    const { startGrpcServer } = await import('./index.js');
    const protoLoader = await import('@grpc/proto-loader');
    const { protoPath } = await import('grpc-health-check');
    const listening = await startGrpcServer(() => undefined, 0, '127.0.0.1', ['githost.storage.v1.StorageService'], SECRET);
    const def = grpc.loadPackageDefinition(protoLoader.loadSync(protoPath, { enums: String })) as unknown as { grpc: { health: { v1: { Health: new (addr: string, creds: grpc.ChannelCredentials) => grpc.Client & { Check: (req: { service: string }, cb: (err: grpc.ServiceError | null, res?: { status: string }) => void) => void } } } } };
    const client = new def.grpc.health.v1.Health(`127.0.0.1:${listening.port}`, grpc.credentials.createInsecure());
    const check = (service: string) => new Promise<string>((resolve, reject) => client.Check({ service }, (err, res) => (err ? reject(err) : resolve(res!.status))));
    try {
      expect(await check('')).toBe('SERVING');
      expect(await check('githost.storage.v1.StorageService')).toBe('SERVING');
      await expect(check('nope')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    } finally {
      client.close();
      await listening.close(100);
    }
  });
});
