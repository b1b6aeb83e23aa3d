/** Sends one ack frame: `multiple` acks every outstanding delivery up to and including `tag`. */
export type SendAck = (tag: number, multiple: boolean) => void;

/**
 * The acks of one channel, coalesced. Handlers finish out of order; a quorum queue turns every ack
 * frame into a command in its Raft log, so acks that finish together go out as one frame with
 * `multiple` set, covering the run of deliveries before it that are all settled. An ack behind a
 * delivery still being handled cannot ride in that frame (it would ack the unfinished one too), so
 * it goes out alone, at the latest `holdMs` after it was ready: a slow handler never holds the
 * others' acks, and with them the channel's prefetch, for longer than that.
 *
 * Delivery tags on a channel start at 1 and grow by one per delivery (AMQP 0-9-1), so the
 * deliveries not yet acked on the wire are the tags from `next` to `highest`; a tag that never came
 * would only stop the run there, and the acks after it would go alone.
 */
export class AckCoalescer {
  /** The lowest tag not yet acked on the wire, and the highest received. */
  private next = 1;
  private highest = 0;
  /** Finished, waiting for their frame. */
  private readonly ready = new Set<number>();
  /** Settled on the wire already (acked alone, or nacked): skipped, never acked again. */
  private readonly gone = new Set<number>();
  private flushQueued = false;
  private holdTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly send: SendAck,
    private readonly holdMs = 20,
  ) {}

  /** A delivery arrived (in tag order). */
  received(tag: number): void {
    this.highest = Math.max(this.highest, tag);
  }

  /** Its handler finished: the ack goes out with the next flush (this turn of the event loop). */
  ack(tag: number): void {
    if (this.stopped) return;
    this.ready.add(tag);
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      this.flush(false);
    });
  }

  /** It was settled another way (nack, reject) on the wire: it no longer blocks the run. */
  settledElsewhere(tag: number): void {
    this.ready.delete(tag);
    this.gone.add(tag);
    this.flush(false);
  }

  /** Sends every finished ack now (before the channel closes, so none is lost to the close). */
  flushNow(): void {
    this.flush(true);
  }

  /** The channel is gone: its tags mean nothing on the next one, and nothing more is sent. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.holdTimer);
    this.ready.clear();
  }

  /** Deliveries received and not yet settled on the wire. */
  get pending(): number {
    return this.highest - this.next + 1 - this.gone.size;
  }

  private flush(expired: boolean): void {
    if (this.stopped) return;
    let last: number | undefined;
    for (; this.next <= this.highest; this.next++) {
      if (this.ready.delete(this.next)) last = this.next;
      else if (!this.gone.delete(this.next)) break;
    }
    if (last !== undefined) this.send(last, true);
    if (this.ready.size === 0) {
      clearTimeout(this.holdTimer);
      this.holdTimer = undefined;
      return;
    }
    if (expired) {
      // Behind a delivery still in its handler: each goes alone rather than wait for it.
      for (const tag of this.ready) {
        this.send(tag, false);
        this.gone.add(tag);
      }
      this.ready.clear();
      this.holdTimer = undefined;
      return;
    }
    if (this.holdTimer) return;
    this.holdTimer = setTimeout(() => {
      this.holdTimer = undefined;
      this.flush(true);
    }, this.holdMs);
    this.holdTimer.unref();
  }
}
