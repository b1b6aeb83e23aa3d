import { describe, expect, it } from '@jest/globals';
import { Readable } from 'node:stream';
import { ByteReader } from './byte-reader.js';

const chunked = (text: string, size: number) => {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return new ByteReader(Readable.from(chunks));
};

describe('ByteReader', () => {
  it('when lines are cut at chunk boundaries, then scanLines hands over exactly the asked-for lines and leaves the rest', async () => {
    const reader = chunked('alpha 1\nbeta 22\ngamma 333\ntail\n', 5);
    const lines: string[] = [];
    await reader.scanLines(3, (buf, start, end) => lines.push(buf.toString('utf8', start, end)));
    expect(lines).toEqual(['alpha 1', 'beta 22', 'gamma 333']);
    expect(await reader.readLine()).toBe('tail');
  });

  it('when an object spans many chunks, then readExact returns its exact bytes and the next read starts right after', async () => {
    const body = 'x'.repeat(1000) + 'y'.repeat(1000);
    const reader = chunked(`${body}\nnext\n`, 7);
    const got = await reader.readExact(2001);
    expect(got.toString()).toBe(`${body}\n`);
    expect(await reader.readLine()).toBe('next');
  });

  it('when the stream ends before the asked-for lines, then scanLines fails instead of waiting', async () => {
    const reader = chunked('only one\n', 4);
    await expect(reader.scanLines(2, () => undefined)).rejects.toThrow('unexpected end of stream');
  });
});
