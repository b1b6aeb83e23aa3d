import type { Readable } from 'node:stream';

const EMPTY = Buffer.alloc(0);

/**
 * Pulls bytes from a stream on demand (lines, exact lengths, bounded chunks). Reading only when
 * asked keeps backpressure intact: a big blob is never read faster than it is consumed.
 */
export class ByteReader {
  private readonly it: AsyncIterator<Buffer>;
  private buf: Buffer = EMPTY;

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

  /**
   * Exactly n bytes. When they are not all buffered yet, one buffer of n bytes is allocated and
   * chunks are copied in as they arrive: growing a buffer chunk by chunk copied a 3 MB tree
   * object some 50 times over.
   */
  async readExact(n: number): Promise<Buffer> {
    if (this.buf.length >= n) {
      const out = this.buf.subarray(0, n);
      this.buf = this.buf.subarray(n);
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let at = this.buf.copy(out, 0);
    this.buf = EMPTY;
    while (at < n) {
      const next = await this.it.next();
      if (next.done) throw new Error('unexpected end of stream');
      const chunk = next.value;
      const take = Math.min(n - at, chunk.length);
      chunk.copy(out, at, 0, take);
      at += take;
      if (take < chunk.length) this.buf = chunk.subarray(take);
    }
    return out;
  }

  /**
   * Hands the next `count` LF-terminated lines to `onLine` as (buffer, start, end-before-LF),
   * scanning each chunk synchronously: one await per chunk instead of one per line, and no string
   * or object per line (100,000 `info` answers for a large tree).
   */
  async scanLines(count: number, onLine: (buf: Buffer, start: number, end: number) => void): Promise<void> {
    let left = count;
    while (left > 0) {
      if (this.buf.length === 0) await this.fill();
      const buf = this.buf;
      let at = 0;
      while (left > 0) {
        const nl = buf.indexOf(10, at);
        if (nl < 0) break;
        onLine(buf, at, nl);
        at = nl + 1;
        left--;
      }
      this.buf = buf.subarray(at);
      // A line cut by the chunk boundary is completed by the next chunk (fill appends it).
      if (left > 0 && this.buf.length > 0) await this.fill();
    }
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
