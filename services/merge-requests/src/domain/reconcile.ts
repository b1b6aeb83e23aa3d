import type { Deps } from './merge-requests.js';
import { mergeRequestEvent } from './merge-request-event.js';
import type { EventRelay, GitPort } from './ports.js';
import type { MergeIntent, MergeRequest } from './types.js';

export interface ReconcileOutcome {
  completed: string[];
  dropped: string[];
  /** Intents left for the next run because git-storage or the database did not answer. */
  deferred: string[];
}

/**
 * Finishes merges interrupted between the ref move and the database transaction (a crash, a
 * database outage). The ref tells the truth: when the target branch is at the planned result or
 * contains it, the merge happened and its transaction (state, activity, event) is completed;
 * otherwise nothing happened in git and the claim is dropped so the merge can be retried.
 * Only intents idle for `olderThanMs` are touched, so merges in flight elsewhere are left alone.
 */
export interface ReconcileDeps {
  store: Deps['store'];
  relay: EventRelay;
  /** git access on one shard: each intent is checked where its repository lives. */
  gitOn(shard: string): GitPort;
  /** Tells readers keeping the repository's merge request answers that they changed (http/announce.ts). */
  announce?(shard: string, repositoryId: string): Promise<void>;
}

export async function reconcileMergeIntents(deps: ReconcileDeps, olderThanMs: number): Promise<ReconcileOutcome> {
  const out: ReconcileOutcome = { completed: [], dropped: [], deferred: [] };
  for (const intent of await deps.store.staleIntents(olderThanMs)) {
    try {
      if (await landed(deps, intent)) {
        const merged = await deps.store.completeMerge({
          mr_id: intent.mr_id,
          merged_sha: intent.new_oid as string,
          merged_by: intent.merger_id,
          event: (record: MergeRequest) => mergeRequestEvent(record, intent.repo, intent.request_id),
        });
        if (merged) deps.relay.kick();
        await deps.announce?.(intent.repo.shard, intent.repo.id);
        out.completed.push(intent.mr_id);
      } else {
        await deps.store.releaseMerge(intent.mr_id);
        out.dropped.push(intent.mr_id);
      }
    } catch {
      out.deferred.push(intent.mr_id);
    }
  }
  return out;
}

async function landed(deps: ReconcileDeps, intent: MergeIntent): Promise<boolean> {
  if (!intent.new_oid || !intent.target_ref?.startsWith('refs/heads/')) return false; // claimed, never planned
  const git = deps.gitOn(intent.repo.shard);
  const tip = await git.resolveBranch(intent.repo.id, intent.target_ref.slice('refs/heads/'.length));
  if (tip === null) return false;
  return tip === intent.new_oid || git.isAncestor(intent.repo.id, intent.new_oid, tip);
}
