import type { Readable } from 'node:stream';

/**
 * Pulls bytes from a stream on demand (lines, exact lengths, bounded chunks). Reading only when
 * asked keeps backpressure intact: a big blob is never read faster than it is consumed.
 */
export class ByteReader {
  private readonly it: AsyncIterator<Buffer>;
  private buf: Buffer = Buffer.alloc(0);

  constructor(stream: Readable) {
    this.it = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  private async fill(): Promise<void> {
    const next = await this.it.next();
    if (next.done) throw new Error('unexpected end of stream');
    this.buf = this.buf.length === 0 ? next.value : Buffer.concat([this.buf, next.value]);
  }

  /** The next line without its LF. */
  async readLine(): Promise<string> {
    for (;;) {
      const i = this.buf.indexOf(10);
      if (i >= 0) {
        const line = this.buf.subarray(0, i).toString('utf8');
        this.buf = this.buf.subarray(i + 1);
        return line;
      }
      await this.fill();
    }
  }

  /** Exactly n bytes, buffered (for small objects). */
  async readExact(n: number): Promise<Buffer> {
    while (this.buf.length < n) await this.fill();
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** n bytes as chunks of at most `max`, pulled one at a time. */
  async *readChunks(n: number, max: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.buf.length === 0) await this.fill();
      const take = Math.min(left, max, this.buf.length);
      const chunk = this.buf.subarray(0, take);
      this.buf = this.buf.subarray(take);
      left -= take;
      yield chunk;
    }
  }
}
