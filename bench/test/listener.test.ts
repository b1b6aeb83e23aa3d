import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import { accepts, listenerPid, statusBytes } from '../src/listener.js';

describe('finding the process that holds a port', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((s) => s.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('when this process listens on a port, then it accepts and the listener found is this process', async () => {
    expect(await accepts(port)).toBe(true);
    expect(listenerPid(port)).toBe(process.pid);
    expect(statusBytes(process.pid, 'VmRSS')).toBeGreaterThan(0);
  });

  it('when nothing listens on a port, then it does not accept and no listener is found', async () => {
    // Port 1: the system never hands it out for a listen on port 0, so no test running beside this
    // one can take it, as it could a port released here.
    const unused = 1;
    expect(await accepts(unused)).toBe(false);
    expect(listenerPid(unused)).toBeUndefined();
  });
});
