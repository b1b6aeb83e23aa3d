import { isFullOid } from '@githost/git-records/object-id';
import { apiPath } from '../../clients/api.js';
import { attempt } from '../../views/forms.js';
import { mrPages } from '../paths.js';
import { field, redirect, type PageContext, type PageResult } from '../registry.js';
import { isMergeStrategy, numberOf } from './common.js';

/** Which merge request a change is for (the API's path parameters). */
type MrAt = { owner: string; repo: string; number: number };
import { detailPage } from './detail.js';

/** A change posted from the merge request page: done, back to the page with a notice (303);
 *  refused, the page again with the API's message. */
async function change(ctx: PageContext, owner: string, name: string, raw: string, run: (at: MrAt) => Promise<unknown>, done: string, anchor = ''): Promise<PageResult> {
  const number = numberOf(raw);
  const result = await attempt(
    () => run({ owner, repo: name, number }),
    (message, status) => detailPage(ctx, owner, name, raw, { error: message, status }),
  );
  if (!result.ok) return result.result;
  return redirect(`${mrPages.show(owner, name, number)}?done=${done}${anchor}`);
}

export function addComment(ctx: PageContext, owner: string, name: string, raw: string): Promise<PageResult> {
  const body: Record<string, unknown> = { body: field(ctx.form, 'body') };
  const path = field(ctx.form, 'file_path');
  if (path) {
    const line = Number(field(ctx.form, 'line_number'));
    const side = field(ctx.form, 'diff_side');
    body.file_path = path;
    if (Number.isInteger(line) && line > 0) body.line_number = line;
    if (side === 'old' || side === 'new') body.diff_side = side;
  }
  if (!String(body.body).trim()) return detailPage(ctx, owner, name, raw, { error: 'Write something to comment.', status: 400 });
  return change(ctx, owner, name, raw, (at) => ctx.api.call('POST', apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/comments', at), body), 'commented');
}

export function addReview(ctx: PageContext, owner: string, name: string, raw: string): Promise<PageResult> {
  const event = field(ctx.form, 'event');
  const text = field(ctx.form, 'body');
  if (event !== 'approve' && event !== 'request_changes' && event !== 'comment') return detailPage(ctx, owner, name, raw, { error: 'Choose how to review.', status: 400 });
  return change(ctx, owner, name, raw, (at) => ctx.api.call('POST', apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/reviews', at), { event, ...(text.trim() ? { body: text } : {}) }), 'reviewed');
}

export function merge(ctx: PageContext, owner: string, name: string, raw: string): Promise<PageResult> {
  const strategy = field(ctx.form, 'strategy');
  const sha = field(ctx.form, 'sha');
  const body: Record<string, unknown> = {};
  if (isMergeStrategy(strategy)) body.strategy = strategy;
  // The head the person saw: a push since then is refused (409 `Head branch was modified`).
  if (isFullOid(sha)) body.sha = sha;
  if (field(ctx.form, 'delete_source_branch')) body.delete_source_branch = true;
  return change(ctx, owner, name, raw, (at) => ctx.api.call('POST', apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/merge', at), body), 'merged');
}

export function setState(ctx: PageContext, owner: string, name: string, raw: string): Promise<PageResult> {
  const state = field(ctx.form, 'state');
  if (state !== 'open' && state !== 'closed') return detailPage(ctx, owner, name, raw, { error: 'Unknown state.', status: 400 });
  return change(ctx, owner, name, raw, (at) => ctx.api.call('PATCH', apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}', at), { state }), state === 'open' ? 'reopened' : 'closed');
}
