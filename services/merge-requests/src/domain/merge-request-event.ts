import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@githost/bus';
import type { MergeRequest } from './types.js';

export interface MergeRequestPayload {
  event: 'merge_request';
  action: 'merged';
  repository: { owner: string; name: string; full_name: string };
  sender: { username: string };
  merge_request: { number: number; title: string; state: string };
}

/**
 * seed §6 payload, exactly. `sender` is the repository owner's name, not the merging user: the
 * seed says so explicitly (the merger shows up as the pusher of git-storage's `push` event).
 */
export function mergeRequestEvent(
  merged: MergeRequest,
  repo: { id: string; owner: string; name: string },
  requestId: string | null,
): EventEnvelope<MergeRequestPayload> {
  return {
    id: randomUUID(),
    kind: 'merge_request',
    occurred_at: merged.updated_at,
    repository: { id: repo.id, owner: repo.owner, name: repo.name },
    payload: {
      event: 'merge_request',
      action: 'merged',
      repository: { owner: repo.owner, name: repo.name, full_name: `${repo.owner}/${repo.name}` },
      sender: { username: repo.owner },
      merge_request: { number: merged.number, title: merged.title, state: merged.state },
    },
    ...(requestId ? { request_id: requestId } : {}),
  };
}
