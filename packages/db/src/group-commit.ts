/**
 * Group commit: callers submit one item each and wait for it; items that arrive while a batch is
 * being run are run together in the next one, so a busy consumer pays one transaction (or one
 * statement) per batch instead of one per message, and an idle one still runs a lone item at once.
 * Webhooks records events and delivery attempts this way; merge-requests looks up the open merge
 * requests of pushed branches this way (one SELECT for the pushes in flight).
 *
 * A batch that fails is retried one item at a time, so an item that can never be run (a poison
 * message) fails only its own caller and the rest of its batch still commits.
 */
export interface GroupCommitOptions<T, R> {
  /** Runs all items as one unit (one transaction or statement); one result per item, in order. */
  runBatch(items: T[]): Promise<R[]>;
  /** Largest batch. */
  maxBatch: number;
  /** Called when a batch failed and its items are retried one by one. */
  onBatchFailed?(err: unknown, size: number): void;
}

interface Pending<T, R> {
  item: T;
  resolve(result: R): void;
  reject(err: unknown): void;
}

export class GroupCommit<T, R> {
  private queue: Pending<T, R>[] = [];
  private writing: Promise<void> | null = null;

  constructor(private readonly opts: GroupCommitOptions<T, R>) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // One tick's worth of arrivals (a burst of broker deliveries) joins the first batch too.
      this.writing ??= new Promise<void>((r) => setImmediate(r)).then(() => this.drain());
    });
  }

  /** Resolves once every item submitted so far is settled. */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.opts.maxBatch);
      await this.write(batch);
    }
    this.writing = null;
  }

  private async write(batch: Pending<T, R>[]): Promise<void> {
    try {
      const results = await this.opts.runBatch(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i]!));
      return;
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      this.opts.onBatchFailed?.(err, batch.length);
    }
    for (const p of batch) {
      try {
        p.resolve((await this.opts.runBatch([p.item]))[0]!);
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
