import { validation } from '@githost/errors';
import { MAX_TEXT_CHARS, MAX_TITLE_CHARS } from './limits.js';

/** What a PATCH asks for; absent fields stay as they are. */
export interface UpdateInput {
  title?: string;
  description?: string | null;
  state?: 'open' | 'closed';
  /** Retarget an open merge request (Gitea's `base`; docs/decisions/gitea-api.md#pull-requests). */
  target_branch?: string;
}

export const UPDATE_STATES = ['open', 'closed'] as const;

/** docs/decisions/merge-request-lifecycle.md: the create limits (CONTRACT §9) hold for an edit too; `description: null` clears it. */
export function validateUpdate(body: unknown): UpdateInput {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (b.title === undefined && b.description === undefined && b.state === undefined && b.target_branch === undefined) {
    throw validation('Nothing to change: give title, description or state');
  }
  const out: UpdateInput = {};
  if (b.title !== undefined) {
    if (typeof b.title !== 'string' || b.title.trim() === '') throw validation('title must be a non-empty string');
    if (b.title.length > MAX_TITLE_CHARS) throw validation(`Title must be at most ${MAX_TITLE_CHARS} characters`);
    out.title = b.title;
  }
  if (b.description !== undefined) {
    if (b.description !== null && typeof b.description !== 'string') throw validation('description must be a string');
    if (typeof b.description === 'string' && b.description.length > MAX_TEXT_CHARS) throw validation(`Description must be at most ${MAX_TEXT_CHARS} characters`);
    out.description = b.description;
  }
  if (b.state !== undefined) {
    if (b.state !== 'open' && b.state !== 'closed') throw validation('state must be "open" or "closed"');
    out.state = b.state;
  }
  if (b.target_branch !== undefined) {
    if (typeof b.target_branch !== 'string' || b.target_branch === '') throw validation('target_branch must be a non-empty string');
    out.target_branch = b.target_branch;
  }
  return out;
}
