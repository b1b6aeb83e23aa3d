import { describe, expect, it } from '@jest/globals';
import client from 'prom-client';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { notFound } from '@githost/errors';
import { createStorageClient, storageProto, type storage } from '@githost/protos';
import { callOptions, callUnary, collectStream, grpc, grpcClientMetrics, grpcServerMetrics, instrumentUnary, metadataFor, serverStream, startGrpcServer, unary } from './index.js';

const SECRET = 'metrics-test-internal-secret';

/** Values of one histogram's `_count` series, keyed `method code`. */
async function counts(registry: client.Registry, name: string): Promise<Record<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const out: Record<string, number> = {};
  for (const v of (metric?.values ?? []) as { metricName?: string; labels: Record<string, string>; value: number }[]) {
    if (v.metricName === `${name}_count`) out[`${v.labels.method} ${v.labels.code}`] = v.value;
  }
  return out;
}

describe('gRPC metrics and request ids over a real connection', () => {
  it('when calls succeed and fail, then server and client histograms count them by method and code, and the server logs the request id', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(JSON.parse(chunk.toString())), done()) });
    const logger = pino({ level: 'info' }, sink);
    const serverRegistry = new client.Registry();
    const clientRegistry = new client.Registry();
    const instruments = { metrics: grpcServerMetrics(serverRegistry, 'git-storage') };
    const def = storageProto().githost.storage.v1.StorageService.service;
    const server = await startGrpcServer((s) => {
      s.addService(def, {
        ListRefs: unary(async () => ({ refs: [] }), logger, instruments),
        ResolveRevision: unary(async () => {
          throw notFound('Revision not found');
        }, logger, instruments),
        CreateRepository: instrumentUnary((_call, callback) => callback({ code: grpc.status.ALREADY_EXISTS, details: 'exists' }), logger, instruments),
        ReadBlob: serverStream<unknown, { oid: string }>(async (_req, call) => {
          call.write({ oid: 'abc' });
        }, logger, instruments),
      });
    }, 0, '127.0.0.1', [], SECRET);
    const storageClient = createStorageClient(`127.0.0.1:${server.port}`, SECRET);
    const metrics = grpcClientMetrics(clientRegistry, 'browse');
    try {
      await callUnary(storageClient, storageClient.ListRefs, { repository_id: 'r' }, { requestId: 'req-1', metrics });
      await callUnary(storageClient, storageClient.ListRefs, { repository_id: 'r' }, { requestId: 'req-2', metrics });
      await expect(callUnary(storageClient, storageClient.ResolveRevision, { repository_id: 'r', revision: 'x' }, { requestId: 'req-3', metrics })).rejects.toMatchObject({ kind: 'not_found' });
      const blob = await collectStream<storage.ReadBlobResponse__Output>(storageClient.ReadBlob({ repository_id: 'r', commit_oid: 'c', path: 'p' }, metadataFor('req-4'), callOptions({ metrics })));
      expect(blob.map((m) => m.oid)).toEqual(['abc']);
      await expect(callUnary(storageClient, storageClient.CreateRepository, { repository_id: 'r', default_branch: 'main' }, { requestId: 'req-5', metrics })).rejects.toMatchObject({ kind: 'conflict' });

      const expected = { 'ListRefs OK': 2, 'ResolveRevision NOT_FOUND': 1, 'ReadBlob OK': 1, 'CreateRepository ALREADY_EXISTS': 1 };
      expect(await counts(serverRegistry, 'githost_git_storage_grpc_server_handled_seconds')).toEqual(expected);
      expect(await counts(clientRegistry, 'githost_browse_grpc_client_handled_seconds')).toEqual(expected);
      expect(lines.filter((l) => l.msg === 'grpc call').map((l) => [l.request_id, l.method, l.code])).toEqual([
        ['req-1', 'ListRefs', 'OK'],
        ['req-2', 'ListRefs', 'OK'],
        ['req-3', 'ResolveRevision', 'NOT_FOUND'],
        ['req-4', 'ReadBlob', 'OK'],
        ['req-5', 'CreateRepository', 'ALREADY_EXISTS'],
      ]);
    } finally {
      storageClient.close();
      await server.close(100);
    }
  });

  it('when a service builds two clients, then both share its one client histogram', async () => {
    const registry = new client.Registry();
    const a = grpcClientMetrics(registry, 'merge-requests');
    const b = grpcClientMetrics(registry, 'merge-requests');
    a.observe('GetUsers', 0, 0.01);
    b.observe('Diff', 14, 0.01);
    expect(await counts(registry, 'githost_merge_requests_grpc_client_handled_seconds')).toEqual({ 'GetUsers OK': 1, 'Diff UNAVAILABLE': 1 });
  });
});
