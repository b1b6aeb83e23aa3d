import type { Writable } from 'node:stream';

/**
 * Buffers a `git fast-import` stream and writes it with backpressure, so generating a repository
 * of hundreds of MB never holds more than a few MB in memory.
 */
export class FastImportWriter {
  private chunks: Buffer[] = [];
  private pending = 0;

  constructor(private readonly out: Writable) {}

  line(text: string): void {
    this.push(Buffer.from(text + '\n'));
  }

  /** `data <n>` followed by the exact bytes. */
  data(bytes: Buffer): void {
    this.line(`data ${bytes.length}`);
    this.push(bytes);
    this.push(Buffer.from('\n'));
  }

  async maybeFlush(): Promise<void> {
    if (this.pending >= 4 * 1024 * 1024) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.chunks.length === 0) return;
    const buf = Buffer.concat(this.chunks);
    this.chunks = [];
    this.pending = 0;
    if (!this.out.write(buf)) {
      await new Promise<void>((resolve, reject) => {
        const onError = (err: Error): void => reject(err);
        this.out.once('error', onError);
        this.out.once('drain', () => {
          this.out.off('error', onError);
          resolve();
        });
      });
    }
  }

  private push(buf: Buffer): void {
    this.chunks.push(buf);
    this.pending += buf.length;
  }
}
