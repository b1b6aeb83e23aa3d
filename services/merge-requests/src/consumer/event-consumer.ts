import type { EventBus, EventEnvelope, Subscription } from '@githost/bus';
import type { Logger } from '@githost/logging';
import { followPush, forgetRepository, type FollowDeps } from '../domain/follow-branch.js';

/** The kinds this service learns from (BRIEF event conventions): git-storage's. */
export const CONSUMED_KINDS = ['push', 'repository_deleted'] as const;

/**
 * Merge requests follow pushes and forget deleted repositories. The handler resolves after its
 * transaction committed and the bus acks only then; one that throws (git-storage or the database
 * down, a merge in flight) gets the event again, and the handled-event record makes a second
 * application a no-op.
 */
export function subscribeToRepositoryEvents(bus: EventBus, deps: FollowDeps, logger: Logger, queue: string): Promise<Subscription> {
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
    const outcome = await followPush(deps, event);
    if (outcome !== 'nothing') logger.info({ event_id: event.id, repo_id: event.repository.id, outcome, request_id: event.request_id }, 'push applied to merge requests');
  };
  return bus.subscribe(queue, [...CONSUMED_KINDS], handler);
}
