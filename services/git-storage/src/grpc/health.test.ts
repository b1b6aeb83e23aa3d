import { describe, expect, it } from '@jest/globals';
import { grpc } from '@githost/grpc';
import { cleanupWorkdirs, startTestStorage } from '../testing.js';
import { decodeRequest, encodeRequest, HEALTH_SERVICE } from './health.js';

function check(address: string, service: string): Promise<{ status: number }> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const m = HEALTH_SERVICE.Check!;
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(m.path, m.requestSerialize, m.responseDeserialize, { service }, (err, res) => {
      client.close();
      if (err) reject(err);
      else resolve(res as { status: number });
    });
  });
}

describe('grpc.health.v1', () => {
  it('when a request is encoded and decoded, then the service name survives (long names too)', () => {
    for (const service of ['', 'githost.storage.v1.StorageService', 'x'.repeat(300)]) expect(decodeRequest(encodeRequest({ service }))).toEqual({ service });
  });

  it('when the server runs, then Check answers SERVING for the server and the storage service and SERVICE_UNKNOWN otherwise', async () => {
    const s = await startTestStorage();
    try {
      expect(await check(s.grpcAddress, '')).toEqual({ status: 1 });
      expect(await check(s.grpcAddress, 'githost.storage.v1.StorageService')).toEqual({ status: 1 });
      expect(await check(s.grpcAddress, 'other.Service')).toEqual({ status: 3 });
    } finally {
      await s.stop();
      await cleanupWorkdirs();
    }
  });
});
