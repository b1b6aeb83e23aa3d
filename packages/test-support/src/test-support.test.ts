import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { eventually, freePort, sample, startReceiver, statusByPath, waitFor } from './index.js';

describe('eventually / waitFor', () => {
  it('when the check yields a value after a few polls, then that value', async () => {
    let n = 0;
    expect(await eventually(() => (++n >= 3 ? n : undefined))).toBe(3);
  });

  it('when the condition never holds, then it fails naming what it waited for', async () => {
    await expect(waitFor(() => false, 'the moon', 50)).rejects.toThrow('timed out waiting for the moon');
  });
});

describe('freePort', () => {
  it('when many ports are asked for, then none is handed out twice and each can be listened on', async () => {
    const ports: number[] = [];
    // The kernel hands a just-freed port to the next bind(0) in about one run in 150 of twelve.
    for (let i = 0; i < 600; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports.at(-1), '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('sample', () => {
  const text = '# HELP x\nreq_total{route="/a",status="200"} 3\nreq_total{route="/b",status="500"} 1\nup 1\n';
  it('when labels are given, then the sample whose labels include them', () => {
    expect([sample(text, 'req_total', { status: '500' }), sample(text, 'up'), sample(text, 'req_total', { route: '/c' })]).toEqual([1, 1, undefined]);
  });
});

describe('startReceiver', () => {
  it('when a request comes, then it is recorded with its path, body and signature state, and answered as told', async () => {
    const receiver = await startReceiver({ answer: statusByPath((path) => (path === '/gone' ? 410 : 204)) });
    try {
      const res = await fetch(`${receiver.url}/gone`, { method: 'POST', body: '{"a":1}', headers: { 'x-githost-event': 'push' } });
      expect(res.status).toBe(410);
      expect(receiver.received.map((d) => [d.path, d.method, d.event, d.text, d.body, d.signatureValid])).toEqual([['/gone', 'POST', 'push', '{"a":1}', { a: 1 }, null]]);
    } finally {
      await receiver.close();
    }
  });
});
