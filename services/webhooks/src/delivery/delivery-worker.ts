import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { GroupCommit } from '@githost/db';
import type { Logger } from '@githost/logging';
import type { Got } from 'got';
import type { DeliveryQueue, RecordedAttempt } from '../domain/ports.js';
import type { ClaimedDelivery } from '../domain/types.js';
import { decideNext, type AttemptOutcome, type RetryPolicy } from '../domain/retry-policy.js';
import { formatOf } from '../domain/formats/index.js';
import { deliveryClient, sendDelivery, type SendOptions, type SendResult } from './send-delivery.js';

const RETRY_WAKE_MARGIN_MS = 5;
const CLAIM_DELAY_MS = 20;

export interface WorkerOptions extends SendOptions {
  retry: RetryPolicy;
  /** Deliveries in flight at once. */
  concurrency: number;
  /** Fallback poll for due retries and for deliveries recorded by other replicas. */
  pollMs: number;
}

export interface DeliveryMetrics {
  attempt(outcome: 'delivered' | 'retry' | 'failed', durationMs: number): void;
}

/**
 * Sends deliveries (Gitea's services/webhook/deliver.go is the model): sign, POST within a
 * timeout, record the attempt, and schedule the retry or finish. A first attempt comes from the
 * consumer, which holds its event unacknowledged until the outcome is recorded; a retry, a ping or
 * a redelivery is claimed from the database first (a lease, so replicas and restarts never lose or
 * double-run one silently). Concurrency is bounded; a wake() from the API starts work at once, a
 * timer covers retries that come due.
 */
export class DeliveryWorker {
  private inFlight = 0;
  private polling = false;
  private pollAgain = false;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = 0;
  private readonly running = new Set<Promise<void>>();
  private readonly leaseMs: number;
  private readonly claimBatch: number;
  private readonly agent: { http: HttpAgent; https: HttpsAgent };
  private readonly client: Got;
  /** Attempts that end together are recorded in one transaction. */
  private readonly recorder: GroupCommit<RecordedAttempt, boolean>;

  constructor(
    private readonly deliveries: DeliveryQueue,
    private readonly opts: WorkerOptions,
    private readonly logger: Logger,
    private readonly metrics?: DeliveryMetrics,
  ) {
    // Long enough that a live attempt always records before its lease runs out.
    this.leaseMs = opts.timeoutMs + 30_000;
    this.claimBatch = Math.max(1, Math.floor(opts.concurrency / 4));
    // Every socket a busy worker uses stays open between attempts: a busy receiver is not made to
    // accept a new connection per delivery.
    const agentOptions = { keepAlive: true, maxSockets: opts.concurrency, maxFreeSockets: opts.concurrency };
    this.agent = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
    this.client = deliveryClient({ ...opts, agent: this.agent });
    this.recorder = new GroupCommit({
      runBatch: (attempts) => deliveries.recordAttempts(attempts),
      maxBatch: opts.concurrency,
      onBatchFailed: (err, size) => logger.warn({ err, size }, 'recording a batch of delivery attempts failed; recording them one by one'),
    });
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Stops claiming and waits for the attempts in flight to record. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    while (this.running.size > 0 || this.polling) {
      await Promise.allSettled([...this.running]);
      if (this.polling) await new Promise((r) => setTimeout(r, 10));
    }
    this.agent.http.destroy();
    this.agent.https.destroy();
  }

  /**
   * Sends a delivery's first attempt now and resolves once its outcome is recorded (README
   * "Webhook deliveries"); throws when it could not be recorded, so the consumer leaves the event to the
   * broker, which brings it again. Counts in the worker's concurrency like a claimed attempt.
   */
  async deliverFirst(claim: ClaimedDelivery): Promise<void> {
    this.inFlight++;
    try {
      await this.attempt(claim);
    } finally {
      this.inFlight--;
    }
  }

  wake(): void {
    if (this.stopped) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    void this.poll();
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      do {
        this.pollAgain = false;
        const room = this.opts.concurrency - this.inFlight;
        if (room <= 0 || this.stopped) break;
        const claimed = await this.deliveries.claimDue(room, this.leaseMs);
        for (const claim of claimed) this.launch(claim);
        if (claimed.length === room) this.pollAgain = true;
      } while (this.pollAgain && !this.stopped);
      // Retries this process scheduled set their own timer; this fallback finds other replicas' work.
      this.schedule(this.opts.pollMs);
    } catch (err) {
      this.logger.error({ err }, 'webhook delivery poll failed');
      this.schedule(this.opts.pollMs);
    } finally {
      this.polling = false;
    }
    // A wake() that arrived while this poll was finishing must not wait for the timer.
    if (this.pollAgain && !this.stopped) void this.poll();
  }

  /** Wakes the worker in `ms` unless a wake-up is already due sooner. */
  private schedule(ms: number): void {
    if (this.stopped) return;
    const delay = Math.max(0, ms);
    const at = Date.now() + delay;
    if (this.timer && at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, delay);
    this.timer.unref();
  }

  private launch(claim: ClaimedDelivery): void {
    this.inFlight++;
    const run = this.attempt(claim)
      .catch((err: unknown) => this.logger.error({ err, delivery_id: claim.id, request_id: claim.request_id }, 'webhook delivery attempt failed to record'))
      .finally(() => {
        this.inFlight--;
        this.running.delete(run);
        // Claiming a few at a time instead of one per finished attempt saves a query per delivery
        // under load; a free slot waits at most CLAIM_DELAY_MS for company.
        if (this.opts.concurrency - this.inFlight >= this.claimBatch) this.wake();
        else this.schedule(CLAIM_DELAY_MS);
      });
    this.running.add(run);
  }

  private async attempt(claim: ClaimedDelivery): Promise<void> {
    const body = JSON.stringify(claim.payload);
    const headers = formatOf(claim.type).headers({
      deliveryId: claim.id,
      event: claim.event,
      body,
      secret: claim.secret,
      timestamp: Math.floor(Date.now() / 1000),
    });
    const sent = await sendDelivery(this.client, claim.url, headers, body, this.opts);
    const decision = decideNext(sent.outcome, claim.attempts - claim.round_start + 1, this.opts.retry);
    const status = decision.next === 'retry' ? 'pending' : decision.next;
    await this.recorder.submit({
      claim,
      body,
      result: {
        status,
        ...(decision.next === 'retry' ? { retryInMs: decision.delayMs } : {}),
        responseStatus: sent.outcome.kind === 'response' ? sent.outcome.status : null,
        responseBody: sent.responseBody,
        error: errorOf(sent),
        durationMs: sent.durationMs,
      },
    });
    // next_attempt_at is the database's now() + delay, taken before this line runs; the margin
    // keeps the wake-up from landing a hair before the row is due.
    if (decision.next === 'retry') this.schedule(decision.delayMs + RETRY_WAKE_MARGIN_MS);
    this.metrics?.attempt(decision.next, sent.durationMs);
    this.logger.info(
      { delivery_id: claim.id, webhook_id: claim.webhook_id, event: claim.event, request_id: claim.request_id, outcome: decision.next, response_status: sent.outcome.kind === 'response' ? sent.outcome.status : null, duration_ms: sent.durationMs },
      'webhook delivery attempt',
    );
  }
}

function errorOf(sent: SendResult): string | null {
  const o: AttemptOutcome = sent.outcome;
  if (o.kind !== 'response') return o.error;
  if (o.status >= 200 && o.status < 300) return null;
  if (o.status >= 300 && o.status < 400) return `Redirect not followed (HTTP ${o.status})`;
  return `HTTP ${o.status}`;
}
