import { describe, expect, it } from '@jest/globals';
import type { BlobStream } from './ports.js';
import { openRaw } from './raw.js';

function streamOf(chunks: Buffer[]): BlobStream & { pulled: () => number } {
  let pulled = 0;
  async function* gen() {
    for (const c of chunks) {
      pulled++;
      yield c;
    }
  }
  const size = chunks.reduce((n, c) => n + c.length, 0);
  return { oid: 'x', size, mode: '100644', tooLarge: false, chunks: gen(), cancel: () => undefined, pulled: () => pulled };
}

async function rest(it: AsyncIterator<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let n = await it.next(); !n.done; n = await it.next()) parts.push(n.value);
  return Buffer.concat(parts);
}

describe('openRaw', () => {
  it('when the blob is large, then only the chunks covering the first 8000 bytes are read before answering', async () => {
    const s = streamOf([Buffer.alloc(4096, 0x61), Buffer.alloc(4096, 0x61), Buffer.alloc(4096, 0x61), Buffer.alloc(4096, 0x61)]);
    const raw = await openRaw(s);
    expect([raw.head.length, s.pulled(), raw.contentType]).toEqual([8192, 2, 'text/plain; charset=utf-8']);
    expect((await rest(raw.rest)).length).toBe(8192);
  });

  it('when a zero byte is within the first 8000 bytes of a later chunk, then the content is binary', async () => {
    const second = Buffer.alloc(4096, 0x61);
    second[3000] = 0;
    const raw = await openRaw(streamOf([Buffer.alloc(4096, 0x61), second]));
    expect(raw.contentType).toBe('application/octet-stream');
  });

  it('when the blob is empty, then it is text with an empty head', async () => {
    const raw = await openRaw(streamOf([]));
    expect([raw.size, raw.head.length, raw.contentType]).toEqual([0, 0, 'text/plain; charset=utf-8']);
  });
});
