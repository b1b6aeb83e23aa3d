import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { GATHER_BYTES, pipeGathered, SSH_PACKET_PAYLOAD } from './gather.js';

/** A destination that records each write, and says "full" when told to. */
function recorder(highWaterMark = 1 << 20, later = true) {
  const writes: string[] = [];
  const to = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      if (later) setImmediate(done);
      else done();
    },
  });
  return { to, writes };
}

describe('pipeGathered (docs/decisions/ssh-server.md#the-clone-path)', () => {
  it('when chunks arrive in the same tick, then they are written as one, in order, before the end', async () => {
    const from = new PassThrough();
    const { to, writes } = recorder(1 << 20, false);
    const ended: string[][] = [];
    pipeGathered(from, to, 10);
    from.on('end', () => ended.push([...writes]));
    from.write('ab');
    from.write('cd');
    await new Promise((r) => setImmediate(r));
    from.write('ef');
    from.write('0123456789');
    from.end('z');
    await new Promise((r) => from.once('end', r));
    expect(writes).toEqual(['abcd', 'ef0123456789', 'z']);
    // The last bytes were handed on before any later 'end' listener ran (the exit status follows them).
    expect(ended).toEqual([['abcd', 'ef0123456789', 'z']]);
    expect(to.writableEnded).toBe(false);
  });

  it('when the destination is full, then the source pauses until it drains, and nothing is lost', async () => {
    const from = new PassThrough({ highWaterMark: 4 });
    const { to, writes } = recorder(4);
    pipeGathered(from, to, 4);
    const sent: string[] = [];
    for (let i = 0; i < 50; i++) {
      const piece = `${String(i).padStart(3, '0')};`;
      sent.push(piece);
      if (!from.write(piece)) await new Promise((r) => from.once('drain', r));
    }
    from.end();
    await new Promise((r) => from.once('end', r));
    await new Promise((r) => (to.writableLength === 0 ? r(undefined) : to.once('drain', r)));
    expect(writes.join('')).toBe(sent.join(''));
  });
});

describe('pipeGathered with a corked socket (docs/decisions/ssh-server.md#the-clone-path)', () => {
  it('when chunks are gathered, then each write to the destination runs inside `corked`, and its answer (full or not) is what the source sees', async () => {
    const from = new PassThrough();
    const { to, writes } = recorder(1 << 20, false);
    const inside: string[] = [];
    let depth = 0;
    pipeGathered(from, to, GATHER_BYTES, (write) => {
      depth++;
      const ok = write();
      inside.push(`${depth}:${writes.at(-1)}`);
      depth--;
      return ok;
    });
    from.write('ab');
    from.write('cd');
    await new Promise((r) => setImmediate(r));
    from.end('ef');
    await new Promise((r) => from.once('end', r));
    expect(writes).toEqual(['abcd', 'ef']);
    expect(inside).toEqual(['1:abcd', '1:ef']);
  });

  it('when more than one packet\'s worth arrives in one tick, then it is written as one chunk of up to four packets', async () => {
    const from = new PassThrough();
    const { to, writes } = recorder(1 << 22, false);
    pipeGathered(from, to);
    const piece = Buffer.alloc(SSH_PACKET_PAYLOAD / 2, 'x');
    for (let i = 0; i < 20; i++) from.write(piece);
    from.end();
    await new Promise((r) => from.once('end', r));
    expect(writes.map((w) => w.length)).toEqual([GATHER_BYTES, GATHER_BYTES, 2 * SSH_PACKET_PAYLOAD]);
  });
});
