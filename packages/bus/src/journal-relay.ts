import { createLogger, type Logger } from '@githost/logging';
import type { FileJournal } from './file-journal.js';
import type { EventBus } from './index.js';
import { runRelayLoop, type Relay } from './relay-loop.js';

/**
 * Publishes a FileJournal's events in append order and removes each only after `bus.publish()`
 * resolved (broker confirm): a crash in between publishes it again (at-least-once). A failed
 * publish stops the pass (keeping order) and is retried on the next kick or tick; attempts and the
 * last error are counted per event in memory and logged (the journal files stay as written).
 */
export interface JournalRelayOptions {
  journal: FileJournal;
  bus: EventBus;
  logger?: Logger;
  intervalMs?: number;
  batchSize?: number;
}

export function startJournalRelay(opts: JournalRelayOptions): Relay {
  const { journal, bus } = opts;
  const logger = opts.logger ?? createLogger('bus');
  const batchSize = opts.batchSize ?? 100;
  const attempts = new Map<string, number>();

  const pass = async (): Promise<boolean> => {
    const events = await journal.pending(batchSize);
    for (const [i, event] of events.entries()) {
      try {
        await bus.publish(event);
      } catch (err) {
        const failed = (attempts.get(event.id) ?? 0) + 1;
        attempts.set(event.id, failed);
        logger.warn({ err, event_id: event.id, kind: event.kind, request_id: event.request_id, attempts: failed, backlog: events.length - i }, 'journal publish failed; will retry');
        return false;
      }
      attempts.delete(event.id);
      await journal.remove(event.id);
    }
    return events.length === batchSize;
  };

  return runRelayLoop({ name: 'journal', pass, intervalMs: opts.intervalMs ?? 1000, logger, backlog: () => journal.size() });
}
