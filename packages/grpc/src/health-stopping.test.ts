import { describe, expect, it } from '@jest/globals';
import { markStopping } from '@githost/runtime/stopping';
import { grpc, startGrpcServer } from './index.js';

// Its own file: stopping is process-wide, and this test leaves the process stopping.
describe('gRPC health while the process stops', () => {
  it('when the process starts stopping, then health answers NOT_SERVING before the server closes', async () => {
    const protoLoader = await import('@grpc/proto-loader');
    const { protoPath } = await import('grpc-health-check');
    const listening = await startGrpcServer(() => undefined, 0, '127.0.0.1', ['githost.storage.v1.StorageService'], 'grpc-test-internal-secret');
    const def = grpc.loadPackageDefinition(protoLoader.loadSync(protoPath, { enums: String })) as unknown as { grpc: { health: { v1: { Health: new (addr: string, creds: grpc.ChannelCredentials) => grpc.Client & { Check: (req: { service: string }, cb: (err: grpc.ServiceError | null, res?: { status: string }) => void) => void } } } } };
    const client = new def.grpc.health.v1.Health(`127.0.0.1:${listening.port}`, grpc.credentials.createInsecure());
    const check = (service: string) => new Promise<string>((resolve, reject) => client.Check({ service }, (err, res) => (err ? reject(err) : resolve(res!.status))));
    try {
      expect(await check('githost.storage.v1.StorageService')).toBe('SERVING');
      markStopping();
      expect(await check('')).toBe('NOT_SERVING');
      expect(await check('githost.storage.v1.StorageService')).toBe('NOT_SERVING');
    } finally {
      client.close();
      await listening.close(100);
    }
  });
});
