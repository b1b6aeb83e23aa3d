import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { createLogger } from '@githost/logging';
import { createHttpApp, finish, listen, type Listening } from './index.js';

let server: Listening;

beforeAll(async () => {
  const app = createHttpApp({ service: 'kept-alive', logger: createLogger('kept-alive', 'silent'), json: false });
  // A handler that starts reading the body, then refuses it part way (git over its pack limit).
  app.post('/refuse-part-way', (req, res) => {
    const sink = new PassThrough();
    req.pipe(sink);
    sink.once('data', () => {
      req.unpipe(sink);
      sink.destroy();
      res.status(200).end('refused');
    });
  });
  server = await listen(finish(app), 0, '127.0.0.1');
});
afterAll(() => server.close());

/** Writes `raw` on one connection and returns the status line of each answer, once the last one
 *  (health's `{"status":"ok"}`) arrived or the connection closed. */
function exchange(raw: Buffer[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let text = '';
    const done = () => {
      socket.destroy();
      resolve(text.split(/(?=HTTP\/1\.1 )/).filter(Boolean).map((a) => a.split('\r\n')[0]!));
    };
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (text.endsWith('{"status":"ok"}')) done();
    });
    socket.on('close', done);
    socket.on('error', reject);
    for (const chunk of raw) socket.write(chunk);
  });
}

describe('a body refused part way', () => {
  it('when a handler answers before reading the whole body, then the rest is dropped and the next request on the kept-alive connection is answered', async () => {
    const body = Buffer.alloc(512 * 1024, 'p');
    const answers = await exchange([
      Buffer.from(`POST /refuse-part-way HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`),
      body,
      Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'),
    ]);
    expect(answers).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
  });
});
