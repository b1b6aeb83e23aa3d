import { Transform, type TransformCallback } from 'node:stream';

/**
 * Passes a request body through unchanged and calls `onIdle` once when the client has sent
 * nothing for `idleMs` while the reader was waiting for more. Time spent with data still
 * buffered here (git busy, backpressure) is the service's wait, not the client's, and never
 * counts: the timer starts again instead.
 */
export class IdleCutoff extends Transform {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {
    super();
    this.arm();
  }

  /**
   * The exchange moved the other way (git answered): a full-duplex client that waits for git's
   * output is not idle. Does nothing once the body has ended or been destroyed.
   */
  activity(): void {
    if (this.timer) this.arm();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.arm();
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.disarm();
    callback();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.disarm();
    callback(err);
  }

  private arm(): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.readableLength > 0 || this.writableLength > 0) this.arm();
      else this.onIdle();
    }, this.idleMs);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
