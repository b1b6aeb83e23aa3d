import { setTimeout as sleep } from 'node:timers/promises';
import type { EventBus, EventEnvelope, Subscription } from '@githost/bus';
import { AppError } from '@githost/errors';
import type { Logger } from '@githost/logging';
import { followPush, forgetRepository, type FollowDeps, type PushOutcome } from '../domain/follow-branch.js';

/**
 * Pushes in flight at once. Every push reaches this queue and most touch no merge request, so the
 * handler is short; a deeper window lets the pushes in flight share one lookup and one ack frame
 * (the bus's default, 32, made batches of about twelve under a burst).
 */
const PREFETCH = 128;

/** The kinds this service learns from (BRIEF event conventions): git-storage's. */
export const CONSUMED_KINDS = ['push', 'repository_deleted'] as const;

/**
 * Merge requests follow pushes and forget deleted repositories. The handler resolves after its
 * transaction committed and the bus acks only then; one that throws (git-storage or the database
 * down, a merge in flight) gets the event again, and the handled-event record makes a second
 * application a no-op.
 */
export interface ConsumerOptions {
  /** How long a push waits, inside one delivery, for a merge in flight to record its outcome. */
  mergeWaitMs?: number;
}

export function subscribeToRepositoryEvents(bus: EventBus, deps: FollowDeps, logger: Logger, queue: string, opts: ConsumerOptions = {}): Promise<Subscription> {
  const handler = async (event: EventEnvelope) => {
    if (!event?.repository?.id) {
      logger.warn({ event_id: event?.id, kind: event?.kind }, 'event without a repository ignored');
      return;
    }
    if (event.kind === 'repository_deleted') {
      await forgetRepository(deps, event);
      logger.info({ event_id: event.id, repo_id: event.repository.id, request_id: event.request_id }, 'merge requests of a deleted repository removed');
      return;
    }
    const outcome = await followPushPatiently(deps, event, opts.mergeWaitMs ?? 5000);
    if (outcome !== 'nothing') logger.info({ event_id: event.id, repo_id: event.repository.id, outcome, request_id: event.request_id }, 'push applied to merge requests');
  };
  return bus.subscribe(queue, [...CONSUMED_KINDS], handler, { prefetch: PREFETCH });
}

/**
 * A merge through the API moves the target before it records the merge, so its own `push` often
 * arrives while the merge is in flight. Waiting here a little (the merge takes milliseconds)
 * spares the bus a redelivery, which would hold up the events behind this one.
 */
async function followPushPatiently(deps: FollowDeps, event: EventEnvelope, waitMs: number): Promise<PushOutcome> {
  const until = Date.now() + waitMs;
  for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
    try {
      return await followPush(deps, event);
    } catch (err) {
      if (!(err instanceof AppError) || err.kind !== 'conflict' || Date.now() + delay > until) throw err;
      await sleep(delay);
    }
  }
}
