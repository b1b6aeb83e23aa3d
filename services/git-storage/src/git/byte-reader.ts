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
    if (!(await this.tryFill())) throw new Error('unexpected end of stream');
  }

  /** Pulls one more chunk; false at the end of the stream. */
  private async tryFill(): Promise<boolean> {
    const next = await this.it.next();
    if (next.done) return false;
    this.buf = this.buf.length === 0 ? next.value : Buffer.concat([this.buf, next.value]);
    return true;
  }

  /** Bytes up to (not including) the next `delimiter`, consumed with it; null at the end of the stream. */
  async readUntil(delimiter: number): Promise<Buffer | null> {
    for (let from = 0; ; ) {
      const i = this.buf.indexOf(delimiter, from);
      if (i >= 0) {
        const out = this.buf.subarray(0, i);
        this.buf = this.buf.subarray(i + 1);
        return out;
      }
      from = this.buf.length;
      if (!(await this.tryFill())) {
        if (this.buf.length === 0) return null;
        const out = this.buf;
        this.buf = Buffer.alloc(0);
        return out;
      }
    }
  }

  /**
   * The next LF-terminated line with at most `limit` bytes kept (the rest is skipped while
   * scanning, so one enormous line never sits in memory); `length` is the full length with the LF.
   * Null at the end of the stream.
   */
  async readLineBounded(limit: number): Promise<{ head: Buffer; length: number } | null> {
    const parts: Buffer[] = [];
    let kept = 0;
    let length = 0;
    for (;;) {
      if (this.buf.length === 0 && !(await this.tryFill())) {
        return length === 0 ? null : { head: Buffer.concat(parts), length };
      }
      const i = this.buf.indexOf(10);
      const end = i >= 0 ? i + 1 : this.buf.length;
      const piece = this.buf.subarray(0, end);
      this.buf = this.buf.subarray(end);
      length += piece.length;
      if (kept < limit) {
        const take = piece.subarray(0, limit - kept);
        parts.push(take);
        kept += take.length;
      }
      if (i >= 0) return { head: parts.length === 1 ? parts[0]! : Buffer.concat(parts), length };
    }
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
