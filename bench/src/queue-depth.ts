import amqp from 'amqplib';

/**
 * Samples the ready-message count of the webhooks queue: a deep queue means the consumer is the
 * bottleneck, an empty one that events reach the broker slowly (the producer side).
 */
export class QueueDepthSampler {
  max = 0;
  private timer: NodeJS.Timeout | undefined;
  private conn: Awaited<ReturnType<typeof amqp.connect>> | undefined;

  constructor(private readonly url: string, private readonly queue: string) {}

  async start(): Promise<void> {
    try {
      this.conn = await amqp.connect(this.url);
      const ch = await this.conn.createChannel();
      ch.on('error', () => undefined);
      this.timer = setInterval(() => {
        ch.checkQueue(this.queue).then(
          (q) => (this.max = Math.max(this.max, q.messageCount)),
          () => undefined,
        );
      }, 250);
    } catch {
      // no broker: the column stays empty
      this.conn = undefined;
    }
  }

  async stop(): Promise<number | undefined> {
    if (this.timer) clearInterval(this.timer);
    const had = this.conn !== undefined;
    await this.conn?.close().catch(() => undefined);
    return had ? this.max : undefined;
  }
}
