import { describe, expect, it } from '@jest/globals';
import * as grpc from '@grpc/grpc-js';
import { freePort } from '@githost/test-support';
import { createAccountsClient, RECONNECT_BACKOFF_MAX_MS } from './index.js';

const ready = (client: grpc.Client, withinMs: number) => new Promise<boolean>((resolve) => client.waitForReady(Date.now() + withinMs, (err) => resolve(!err)));

/** What a readiness probe does: asks again and again until the channel answers or time is up. */
async function probeUntil(client: grpc.Client, untilMs: number): Promise<boolean> {
  while (Date.now() < untilMs) if (await ready(client, Math.min(500, Math.max(1, untilMs - Date.now())))) return true;
  return false;
}

describe('service clients', () => {
  it('when a service comes back after being down a while, then its clients reach it within the backoff cap', async () => {
    const port = await freePort();
    const client = createAccountsClient(`127.0.0.1:${port}`, 'secret');
    const server = new grpc.Server();
    try {
      // 16 s of refused connections: grpc-js's own backoff (1 s x 1.6 per attempt, to 120 s) would
      // next try 6-14 s after this; capped, it tries every 2 s or so.
      expect(await probeUntil(client, Date.now() + 16_000)).toBe(false);
      await new Promise<number>((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
      const back = Date.now();
      expect(await probeUntil(client, back + 10_000)).toBe(true);
      // The cap, its 20 % jitter, and room for a loaded machine's connect.
      expect(Date.now() - back).toBeLessThan(RECONNECT_BACKOFF_MAX_MS * 1.2 + 1_500);
    } finally {
      client.close();
      server.forceShutdown();
    }
  }, 40_000);
});
