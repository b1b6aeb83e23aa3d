import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createLogger } from '@githost/logging';
import { upstreamProxy } from './proxy.js';

/** An upstream that starts its answer, then dies (a killed git-storage mid-clone). */
let upstream: Server;
let gateway: Server;

const listen = (s: Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));

beforeAll(async () => {
  upstream = createServer((req, res) => {
    if (req.url === '/dies-mid-answer') {
      res.writeHead(200, { 'Content-Type': 'application/x-git-upload-pack-result' });
      res.write('0008NAK\n');
      setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    res.end('whole');
  });
  const upstreamPort = await listen(upstream);
  const app = express();
  app.use(upstreamProxy('git-storage', { target: `http://127.0.0.1:${upstreamPort}`, agent: new Agent({ keepAlive: true }), logger: createLogger('test') }));
  gateway = createServer(app);
  await listen(gateway);
});

afterAll(async () => {
  await new Promise((r) => gateway.close(r));
  await new Promise((r) => upstream.close(r));
});

function fetchThrough(path: string): Promise<{ status: number; body: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port: (gateway.address() as AddressInfo).port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      // Either way the client learns the answer ended; a hang fails the test on jest's timeout.
      res.on('close', () => resolve({ status: res.statusCode ?? 0, body, complete: res.complete }));
    });
    req.on('error', reject);
  });
}

describe('upstreamProxy', () => {
  it('when the upstream answers in full, then the client gets it all', async () => {
    expect(await fetchThrough('/ok')).toEqual({ status: 200, body: 'whole', complete: true });
  });

  it('when the upstream dies after starting its answer, then the client connection is cut at once instead of hanging', async () => {
    expect(await fetchThrough('/dies-mid-answer')).toEqual({ status: 200, body: '0008NAK\n', complete: false });
  });
});
