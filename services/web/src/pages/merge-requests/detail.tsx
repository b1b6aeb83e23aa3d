import { apiPath, encodePath } from '../../clients/api.js';
import type { CommitStatus, DiffSide, MergeRequestDetail, MrComment, Review } from '../../clients/mr-types.js';
import { renderMarkdown } from '../../render/markdown.js';
import { CommitRow, Notice, shortSha, Time } from '../../views/components.js';
import { DiffView, parsePatch, type DiffViewMode, type InlineComments } from '../../views/diff.js';
import { CsrfField, ErrorNotice, Flash, PostButton } from '../../views/forms.js';
import { mrPages, repoPages, repoUrl } from '../paths.js';
import { page, type PageContext, type PageResult } from '../registry.js';
import { ChangesBase, mrChangesOf } from './changes.js';
import { chromeOf, loadCounts } from '../repo-data.js';
import { numberOf, StateBadge, STRATEGY_LABELS } from './common.js';
import { detailAndCommits } from './commits.js';

/** Which line's comment form is open (`?comment=<side>:<line>&path=<file>`), if any. */
interface OpenLine {
  path: string;
  side: DiffSide;
  line: number;
}

function openLineOf(ctx: PageContext): OpenLine | undefined {
  const m = typeof ctx.req.query.comment === 'string' ? /^(old|new):([1-9][0-9]{0,8})$/.exec(ctx.req.query.comment) : null;
  const path = typeof ctx.req.query.path === 'string' ? ctx.req.query.path : '';
  return m && path ? { path, side: m[1] as DiffSide, line: Number(m[2]) } : undefined;
}

const lineKey = (path: string, side: string, line: number) => `${side}:${line}:${path}`;

function CommentView({ c }: { c: MrComment }) {
  return (
    <article class="comment">
      <p class="comment-meta">
        <strong>{c.author_username ?? 'unknown'}</strong> · <Time iso={c.created_at} />
        {c.file_path && (
          <span class="muted">
            {' '}
            on {c.file_path}
            {c.line_number !== null && `:${c.line_number}`}
            {c.diff_side && ` (${c.diff_side})`}
          </span>
        )}
      </p>
      <pre class="plain comment-body">{c.body}</pre>
    </article>
  );
}

const REVIEW_LABEL: Record<Review['state'], string> = { approved: 'approved', changes_requested: 'requested changes', commented: 'reviewed' };
const STATUS_LABEL: Record<CommitStatus['state'], string> = { pending: 'pending', success: 'passed', failure: 'failed', error: 'error' };

function StatusList({ statuses }: { statuses: CommitStatus[] }) {
  return (
    <ul class="status-list">
      {statuses.map((s) => (
        <li>
          <span class={`badge ci ci-${s.state}`}>{STATUS_LABEL[s.state]}</span> <strong>{s.context}</strong>
          {s.description && <span class="muted"> {s.description}</span>}
          {s.target_url && /^https?:\/\//i.test(s.target_url) && (
            <>
              {' '}
              <a href={s.target_url} rel="nofollow noopener noreferrer">
                Details
              </a>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

const DONE: Record<string, string> = {
  created: 'The merge request has been opened.',
  commented: 'Your comment has been added.',
  reviewed: 'Your review has been submitted.',
  merged: 'The merge request has been merged.',
  closed: 'The merge request has been closed.',
  reopened: 'The merge request has been reopened.',
  edited: 'The merge request has been changed.',
};

const STRATEGIES = [{ id: 'default', label: 'Merge (fast-forward when possible)' }, ...Object.entries(STRATEGY_LABELS).map(([id, label]) => ({ id, label }))];

function MergeBox({ ctx, owner, name, mr }: { ctx: PageContext; owner: string; name: string; mr: MergeRequestDetail }) {
  const act = (a: string) => mrPages.action(owner, name, mr.number, a);
  const summary = mr.review_summary;
  const canMerge = Boolean(mr.source_sha && mr.target_sha);
  return (
    <section class="merge-box" aria-labelledby="merge-box-title">
      <h2 id="merge-box-title">Checks and merge</h2>
      {mr.status && (
        <div class="ci-status">
          <p>
            CI on <code>{shortSha(mr.status.sha)}</code>: <span class={`badge ci ci-${mr.status.state}`}>{mr.status.total_count === 0 ? 'no statuses' : STATUS_LABEL[mr.status.state]}</span>
          </p>
          <StatusList statuses={mr.status.statuses} />
        </div>
      )}
      {summary && (
        <p class="review-summary">
          {summary.approvals} {summary.approvals === 1 ? 'approval' : 'approvals'}, {summary.changes_requested} {summary.changes_requested === 1 ? 'change request' : 'change requests'}
        </p>
      )}
      {mr.state === 'merged' ? (
        <p>
          Merged{mr.merged_sha && <> as <a href={repoPages.commit(owner, name, mr.merged_sha)}>{shortSha(mr.merged_sha)}</a></>}.
        </p>
      ) : mr.state === 'closed' ? (
        <>
          <p>This merge request is closed.</p>
          {ctx.viewer && <PostButton ctx={ctx} action={act('state')} fields={{ state: 'open' }} label="Reopen" />}
        </>
      ) : (
        <>
          {mr.mergeable === false ? (
            <div class="notice notice-error" role="status">
              <p>This merge request has conflicts that must be resolved:</p>
              <ul class="conflicts">
                {(mr.conflicts ?? []).map((p) => (
                  <li>
                    <code>{p}</code>
                  </li>
                ))}
              </ul>
            </div>
          ) : mr.mergeable === true ? (
            <p class="mergeable">No conflicts with {mr.target_branch}.</p>
          ) : (
            <p class="muted">Whether it merges cleanly is not known yet.</p>
          )}
          {/* Merge and Close are alternatives: one row of actions under the merge options. Each
              button submits its own form (the HTML `form` attribute), so the row holds both. */}
          {ctx.viewer && (
            <>
              {canMerge && (
                <form method="post" action={act('merge')} class="stack merge-form" id="merge-form">
                  <CsrfField token={ctx.csrf} />
                  <input type="hidden" name="sha" value={mr.source_sha} />
                  <fieldset>
                    <legend>Merge strategy</legend>
                    {STRATEGIES.map((s) => (
                      <label class="check">
                        <input type="radio" name="strategy" value={s.id} checked={s.id === 'default'} /> {s.label}
                      </label>
                    ))}
                  </fieldset>
                  <label class="check">
                    <input type="checkbox" name="delete_source_branch" value="1" /> Delete the source branch after merging
                  </label>
                </form>
              )}
              <form method="post" action={act('state')} id="close-form" hidden>
                <CsrfField token={ctx.csrf} />
                <input type="hidden" name="state" value="closed" />
              </form>
              <div class="merge-actions">
                {canMerge && (
                  <button type="submit" form="merge-form" class="primary">
                    Merge
                  </button>
                )}
                <button type="submit" form="close-form" class="danger">
                  Close merge request
                </button>
              </div>
            </>
          )}
        </>
      )}
    </section>
  );
}

function LineCommentForm({ ctx, action, open }: { ctx: PageContext; action: string; open: OpenLine | undefined }) {
  // Without `open`: the template site.js clones under a clicked line (its own ids, so a form
  // already open on the page keeps its own).
  const id = open ? 'line-comment-body' : 'line-comment-body-js';
  return (
    <form method="post" action={action} class="stack line-comment-form" id={open ? 'new-comment' : undefined}>
      <CsrfField token={ctx.csrf} />
      <input type="hidden" name="file_path" value={open?.path ?? ''} />
      <input type="hidden" name="line_number" value={open ? String(open.line) : ''} />
      <input type="hidden" name="diff_side" value={open?.side ?? ''} />
      <label for={id}>{open ? `Comment on ${open.path} line ${open.line} (${open.side})` : 'Comment on this line'}</label>
      <textarea id={id} name="body" rows={3} required></textarea>
      <button type="submit" class="primary">
        Add comment
      </button>
    </form>
  );
}

export interface DetailOptions {
  error?: string;
  status?: number;
}

export async function detailPage(ctx: PageContext, owner: string, name: string, raw: string, opts: DetailOptions = {}): Promise<PageResult> {
  const number = numberOf(raw);
  const at = { owner, repo: name, number };
  const [repo, { mr, commits, commitsRefused, changes }, reviews, counts] = await Promise.all([
    ctx.api.get(apiPath('/api/repos/{owner}/{repo}', { owner, repo: name })),
    detailAndCommits(ctx.api, `${owner}/${name}#${number}`, apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}', at)).then(async (d) => ({ ...d, changes: await mrChangesOf(ctx.api, owner, name, d.mr) })),
    ctx.api.get(apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}/reviews', at)),
    loadCounts(ctx.api, owner, name),
  ]);
  const mode: DiffViewMode = ctx.req.query.view === 'split' ? 'split' : 'unified';
  const here = mrPages.show(owner, name, number);
  const open = ctx.viewer ? openLineOf(ctx) : undefined;
  // A diff over the page's budget shows one file's changes: the one asked for (`?file=`), or the
  // one whose line comment form is open.
  const shown = typeof ctx.req.query.file === 'string' ? ctx.req.query.file : open?.path;
  const withFile = (params: Record<string, string>) => {
    const q = new URLSearchParams({ ...params, ...(shown !== undefined ? { file: shown } : {}) }).toString();
    return q ? `${here}?${q}` : here;
  };
  const commentAction = mrPages.action(owner, name, number, 'comments');

  // Comments on a line of the diff show under it; the rest (general ones, and lines the current
  // diff no longer has) show in the conversation.
  // Only the files a comment is on are parsed: a diff of thousands of files is not (bench "Big pages").
  const commented = new Set(mr.comments.map((c) => c.file_path).filter((p) => p));
  const lines = new Set<string>();
  for (const f of changes.files) {
    if (!f.patch || !commented.has(f.path)) continue;
    for (const l of parsePatch(f.patch)) {
      if (l.old !== undefined) lines.add(lineKey(f.path, 'old', l.old));
      if (l.new !== undefined) lines.add(lineKey(f.path, 'new', l.new));
    }
  }
  const onLine = new Map<string, MrComment[]>();
  const general: MrComment[] = [];
  for (const c of mr.comments) {
    const key = c.file_path && c.line_number !== null && c.diff_side ? lineKey(c.file_path, c.diff_side, c.line_number) : undefined;
    if (key && lines.has(key)) onLine.set(key, [...(onLine.get(key) ?? []), c]);
    else general.push(c);
  }
  const inline: InlineComments = {
    href: (path, side, line) => `${here}?${new URLSearchParams({ ...(mode === 'split' ? { view: 'split' } : {}), ...(shown === path ? { file: path } : {}), comment: `${side}:${line}`, path }).toString()}#new-comment`,
    below: (path, side, line, table) => {
      const key = lineKey(path, side, line);
      const list = onLine.get(key);
      const formHere = open && table === mode && lineKey(open.path, open.side, open.line) === key;
      if (!list && !formHere) return null;
      return (
        <div class="line-comments">
          {list?.map((c) => <CommentView c={c} />)}
          {formHere && <LineCommentForm ctx={ctx} action={commentAction} open={open} />}
        </div>
      );
    },
  };
  const markdownBase = { blobBase: repoUrl(owner, name, `/-/blob/${encodePath(mr.source_branch)}`), rawBase: repoUrl(owner, name, `/-/raw/${encodePath(mr.source_branch)}`), dir: '' };
  const timeline: { at: string; comment?: MrComment; review?: Review }[] = [...general.map((c) => ({ at: c.created_at, comment: c })), ...reviews.map((r) => ({ at: r.created_at, review: r }))].sort((a, b) => a.at.localeCompare(b.at));
  return page(
    `${mr.title} · Merge request #${number} · ${repo.full_name}`,
    <>
      <div class="mr-header">
        <h1 class="page-title">
          <span class="mr-title">{mr.title}</span> <span class="muted">#{number}</span>
        </h1>
        <p>
          <StateBadge state={mr.state} /> <strong>{mr.author_username ?? 'unknown'}</strong> wants to merge <code class="branch">{mr.source_branch}</code> into <code class="branch">{mr.target_branch}</code> · opened <Time iso={mr.created_at} />
          {ctx.viewer && (
            <>
              {' '}
              · <a href={mrPages.action(owner, name, number, 'edit')}>Edit</a>
            </>
          )}
        </p>
      </div>
      <Flash ctx={ctx} messages={DONE} />
      <ErrorNotice error={opts.error} />
      <section class="mr-description" aria-label="Description">
        {mr.description ? <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(mr.description, markdownBase) }} /> : <p class="muted">No description.</p>}
      </section>
      <MergeBox ctx={ctx} owner={owner} name={name} mr={mr} />
      <section aria-labelledby="mr-commits">
        <h2 id="mr-commits">Commits ({commits.length})</h2>
        {commitsRefused ? (
          <p class="muted">{commitsRefused}</p>
        ) : commits.length === 0 ? (
          <p class="muted">No commits to show (a branch is gone, or there is nothing to merge).</p>
        ) : (
          <ol class="commit-list">
            {commits.map((c) => (
              <CommitRow owner={owner} repo={name} commit={c} />
            ))}
          </ol>
        )}
      </section>
      <h2>Changes</h2>
      <ChangesBase owner={owner} name={name} mr={mr} changes={changes} />
      {ctx.viewer && (
        <template id="line-comment-template">
          <LineCommentForm ctx={ctx} action={commentAction} open={undefined} />
        </template>
      )}
      {changes.files.length > 0 && (
        <DiffView
          files={changes.files}
          mode={mode}
          truncated={changes.truncated}
          toggleHref={(m) => withFile({ view: m })}
          inline={inline}
          onDemand={{ href: (path) => `${here}?${new URLSearchParams({ ...(mode === 'split' ? { view: 'split' } : {}), file: path }).toString()}`, shown }}
        />
      )}
      <section aria-labelledby="mr-conversation" class="conversation">
        <h2 id="mr-conversation">Conversation</h2>
        {timeline.length === 0 && <p class="muted">No comments yet.</p>}
        {timeline.map((item) =>
          item.comment ? (
            <CommentView c={item.comment} />
          ) : (
            <article class={`comment review review-${item.review!.state}`}>
              <p class="comment-meta">
                <strong>{item.review!.author_username ?? 'unknown'}</strong> {REVIEW_LABEL[item.review!.state]} · <Time iso={item.review!.created_at} /> <span class="muted">on {shortSha(item.review!.commit_sha)}</span>
                {item.review!.stale && <span class="badge">outdated</span>}
              </p>
              {item.review!.body && <pre class="plain comment-body">{item.review!.body}</pre>}
            </article>
          ),
        )}
        {ctx.viewer ? (
          <>
            <form method="post" action={commentAction} class="stack">
              <CsrfField token={ctx.csrf} />
              <label for="comment-body">Add a comment</label>
              <textarea id="comment-body" name="body" rows={4} required></textarea>
              <button type="submit">Comment</button>
            </form>
            <form method="post" action={mrPages.action(owner, name, number, 'reviews')} class="stack review-form">
              <CsrfField token={ctx.csrf} />
              <fieldset>
                <legend>Review</legend>
                <label class="check">
                  <input type="radio" name="event" value="approve" checked /> Approve
                </label>
                <label class="check">
                  <input type="radio" name="event" value="request_changes" /> Request changes
                </label>
                <label class="check">
                  <input type="radio" name="event" value="comment" /> Comment only
                </label>
              </fieldset>
              <label for="review-body">Review comment</label>
              <textarea id="review-body" name="body" rows={3}></textarea>
              <button type="submit">Submit review</button>
            </form>
          </>
        ) : (
          <Notice kind="info">Sign in to comment or review.</Notice>
        )}
      </section>
    </>,
    { repo: chromeOf(repo, 'merge-requests', counts), ...(opts.status ? { status: opts.status } : {}) },
  );
}
