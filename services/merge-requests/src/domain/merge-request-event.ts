import type { EventEnvelope } from '@githost/bus';
import { envelope, payloadBase, type MergeRequestPayloadBase } from './lifecycle-events.js';
import type { MergeRequest } from './types.js';

export type MergeRequestPayload = MergeRequestPayloadBase<'merge_request', 'merged'>;

/**
 * seed §6 payload, exactly. `sender` is the repository owner's name, not the merging user: the
 * seed says so explicitly (the merger shows up as the pusher of git-storage's `push` event).
 */
export function mergeRequestEvent(
  merged: MergeRequest,
  repo: { id: string; owner: string; name: string },
  requestId: string | null,
): EventEnvelope<MergeRequestPayload> {
  return envelope('merge_request', merged.updated_at, repo, payloadBase('merge_request', 'merged', repo, repo.owner, merged), requestId);
}
