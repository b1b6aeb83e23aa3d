import { repoApiPath } from '../../clients/api.js';
import { attempt } from '../../views/forms.js';
import { mrPages } from '../paths.js';
import { field, redirect, type PageContext, type PageResult } from '../registry.js';
import { numberOf } from './common.js';
import { detailPage } from './detail.js';

/** A change posted from the merge request page: done, back to the page with a notice (303);
 *  refused, the page again with the API's message. */
async function change(ctx: PageContext, owner: string, name: string, raw: string, run: (base: string) => Promise<unknown>, done: string, anchor = ''): Promise<PageResult> {
  const number = numberOf(raw);
  const result = await attempt(
    () => run(repoApiPath(owner, name, `/merge-requests/${number}`)),
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
  return change(ctx, owner, name, raw, (base) => ctx.api.call('POST', `${base}/comments`, body), 'commented');
}

export function addReview(ctx: PageContext, owner: string, name: string, raw: string): Promise<PageResult> {
  const event = field(ctx.form, 'event');
  const text = field(ctx.form, 'body');
  if (event !== 'approve' && event !== 'request_changes' && event !== 'comment') return detailPage(ctx, owner, name, raw, { error: 'Choose how to review.', status: 400 });
  return change(ctx, owner, name, raw, (base) => ctx.api.call('POST', `${base}/reviews`, { event, ...(text.trim() ? { body: text } : {}) }), 'reviewed');
}

export function merge(ctx: PageContext, owner: string, name: string, raw: string): Promise<PageResult> {
  const strategy = field(ctx.form, 'strategy');
  const sha = field(ctx.form, 'sha');
  const body: Record<string, unknown> = {};
  if (strategy === 'merge-commit' || strategy === 'squash' || strategy === 'fast-forward-only') body.strategy = strategy;
  // The head the person saw: a push since then is refused (409 `Head branch was modified`).
  if (/^[0-9a-f]{40}$/.test(sha)) body.sha = sha;
  if (field(ctx.form, 'delete_source_branch')) body.delete_source_branch = true;
  return change(ctx, owner, name, raw, (base) => ctx.api.call('POST', `${base}/merge`, body), 'merged');
}

export function setState(ctx: PageContext, owner: string, name: string, raw: string): Promise<PageResult> {
  const state = field(ctx.form, 'state');
  if (state !== 'open' && state !== 'closed') return detailPage(ctx, owner, name, raw, { error: 'Unknown state.', status: 400 });
  return change(ctx, owner, name, raw, (base) => ctx.api.call('PATCH', base, { state }), state === 'open' ? 'reopened' : 'closed');
}
