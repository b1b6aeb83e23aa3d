import { createLogger, type Logger } from '@githost/logging';
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
}

export function startJournalRelay(opts: JournalRelayOptions): Relay {
  const { journal, bus } = opts;
  const logger = opts.logger ?? createLogger('bus');
  const batchSize = opts.batchSize ?? 500;
  const attempts = new Map<string, number>();

  const pass = async (): Promise<boolean> => {
    const events = await journal.pending(batchSize);
    // Every publish of the batch is issued before any confirm is awaited: the broker still gets
    // them in append order (one channel, calls in order), and a batch costs one confirm round
    // trip instead of one per event (one at a time capped push events at ~15-27/s).
    const results = await Promise.allSettled(events.map((event) => bus.publish(event)));
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
