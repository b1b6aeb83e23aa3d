import { isFullOid } from '@githost/git-records/object-id';
import { validation } from '@githost/errors';
import { MAX_TEXT_CHARS, MAX_TITLE_CHARS } from './limits.js';

export const MERGE_STRATEGIES = ['merge-commit', 'squash', 'fast-forward-only'] as const;
export type RequestedStrategy = (typeof MERGE_STRATEGIES)[number];

/** The optional merge body; an empty one asks for exactly the seed's merge (seed §4 procedure). */
export interface MergeOptions {
  strategy?: RequestedStrategy;
  /** The source tip the caller reviewed. */
  sha?: string;
  commit_title?: string;
  commit_message?: string;
  delete_source_branch?: boolean;
}

/** Types and values checked before anything is claimed: bad input changes nothing. */
export function validateMergeOptions(body: unknown): MergeOptions {
  // The seed's merge takes no body: anything that is not an object carries no option.
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const b = body as Record<string, unknown>;
  const out: MergeOptions = {};
  if (b.strategy !== undefined) {
    if (!MERGE_STRATEGIES.includes(b.strategy as RequestedStrategy)) throw validation(`strategy must be one of: ${MERGE_STRATEGIES.join(', ')}`);
    out.strategy = b.strategy as RequestedStrategy;
  }
  if (b.sha !== undefined) {
    if (typeof b.sha !== 'string' || !isFullOid(b.sha.toLowerCase())) throw validation('sha must be a 40-character hex commit id');
    out.sha = b.sha.toLowerCase();
  }
  if (b.commit_title !== undefined) {
    if (typeof b.commit_title !== 'string' || b.commit_title.trim() === '') throw validation('commit_title must be a non-empty string');
    if (b.commit_title.length > MAX_TITLE_CHARS) throw validation(`commit_title must be at most ${MAX_TITLE_CHARS} characters`);
    out.commit_title = b.commit_title;
  }
  if (b.commit_message !== undefined) {
    if (typeof b.commit_message !== 'string') throw validation('commit_message must be a string');
    if (b.commit_message.length > MAX_TEXT_CHARS) throw validation(`commit_message must be at most ${MAX_TEXT_CHARS} characters`);
    out.commit_message = b.commit_message;
  }
  if (b.delete_source_branch !== undefined) {
    if (typeof b.delete_source_branch !== 'boolean') throw validation('delete_source_branch must be a boolean');
    out.delete_source_branch = b.delete_source_branch;
  }
  return out;
}

/** A commit message from a title and an optional body, git's shape (blank line, final newline). */
export function commitMessage(title: string, body: string | undefined): string {
  const text = body?.trim() ? `${title}\n\n${body.replace(/\s+$/, '')}` : title;
  return `${text}\n`;
}
