import { createLogger, type Logger } from '@githost/logging';
import { yieldToEventLoop } from '@githost/runtime';
import type { FileJournal } from './file-journal.js';
import type { EventBus } from './event-bus.js';
import { eventLogFields } from './log-fields.js';
import { runRelayLoop, type Relay } from './relay-loop.js';

/**
 * Publishes a FileJournal's events in append order and removes each only after its
 * `bus.publish()` resolved (broker confirm): a crash in between publishes it again
 * (at-least-once). An event whose publish failed stays in the journal and is retried on the next
 * kick or tick (so after a failure it may arrive after later events; consumers de-duplicate on id
 * and must not rely on order); attempts and the last error are counted in memory and logged.
 */
export interface JournalRelayOptions {
  journal: FileJournal;
  bus: EventBus;
  logger?: Logger;
  intervalMs?: number;
  /** Events per pass, at least (a journal file is published whole). */
  batchSize?: number;
  /** Publishes issued together before their confirms are awaited. */
  sliceSize?: number;
}

/**
 * Publishes in flight at once. A pass of a push of many refs holds hundreds of events; issued all
 * at once, their serialisation (and, in the embedded mode, every consumer's handler, which the
 * in-process bus runs inside publish) held the event loop for seconds. A slice at a time, with the
 * loop given back between slices (docs/decisions/many-refs-push.md#yielding).
 */
export const DEFAULT_PUBLISH_SLICE = 100;

export function startJournalRelay(opts: JournalRelayOptions): Relay {
  const { journal, bus } = opts;
  const logger = opts.logger ?? createLogger('bus');
  const batchSize = opts.batchSize ?? 500;
  const sliceSize = Math.max(1, opts.sliceSize ?? DEFAULT_PUBLISH_SLICE);
  const attempts = new Map<string, number>();

  const pass = async (): Promise<boolean> => {
    const events = await journal.pending(batchSize);
    // Every publish of a slice is issued before any confirm is awaited: the broker still gets
    // them in append order (one channel, calls in order), and a slice costs one confirm round
    // trip instead of one per event (one at a time capped push events at ~15-27/s).
    const results: PromiseSettledResult<void>[] = [];
    for (let at = 0; at < events.length; at += sliceSize) {
      if (at > 0) await yieldToEventLoop();
      const slice = await Promise.allSettled(events.slice(at, at + sliceSize).map((event) => bus.publish(event)));
      results.push(...slice);
      // The bus is failing (a broker away waits seconds per publish): the rest waits for the next pass.
      if (slice.some((r) => r.status === 'rejected')) break;
    }
    const published: string[] = [];
    let failures = 0;
    for (const [i, result] of results.entries()) {
      const event = events[i]!;
      if (result.status === 'fulfilled') {
        attempts.delete(event.id);
        published.push(event.id);
        continue;
      }
      failures += 1;
      const failed = (attempts.get(event.id) ?? 0) + 1;
      attempts.set(event.id, failed);
      logger.warn({ err: result.reason, ...eventLogFields(event), attempts: failed }, 'journal publish failed; will retry');
    }
    await journal.removeMany(published);
    return failures === 0 && events.length >= batchSize;
  };

  return runRelayLoop({ name: 'journal', pass, intervalMs: opts.intervalMs ?? 1000, logger, backlog: () => journal.size() });
}
