import { apiPath } from '../clients/api.js';
import type { Comparison } from '../clients/mr-types.js';
import { CommitRow, Notice, subjectOf } from '../views/components.js';
import { DiffView, type DiffViewMode } from '../views/diff.js';
import { attempt, CsrfField, ErrorNotice } from '../views/forms.js';
import { mrPages } from './paths.js';
import { branchChoices, branchExists, type BranchChoices, chromeOf, loadRepoCounted, type RepoView } from './repo-data.js';
import { field, page, redirect, type PageContext, type PageDefinition, type PageResult } from './registry.js';
import { AppError } from '@githost/errors';

const queryOf = (ctx: PageContext, name: string) => (typeof ctx.req.query[name] === 'string' ? (ctx.req.query[name] as string) : '');

/** The query's base and head (a branch, a tag or a commit id); absent base: the default branch. */
function pickedRefs(ctx: PageContext, view: RepoView): { base: string; head: string } {
  return { base: queryOf(ctx, 'base') || view.repo.default_branch, head: queryOf(ctx, 'head') };
}

/**
 * A branch select of at most BRANCH_CHOICES_MAX names that hold the filter beside it (`base_q`,
 * `head_q`), found by the API, never every branch (docs/decisions/ref-pages.md#choosing-a-branch).
 * A ref from the URL that is not among them (a tag, a commit id, a branch the filter leaves out)
 * stays chosen.
 */
function BranchPicker({ id, label, name, value, q, choices }: { id: string; label: string; name: string; value: string; q: string; choices: BranchChoices }) {
  return (
    <p class="picker">
      <label for={id}>{label}</label>
      <select id={id} name={name}>
        {name === 'head' && !value && <option value="">Choose a branch</option>}
        {choices.names.map((n) => (
          <option value={n} selected={n === value}>
            {n}
          </option>
        ))}
      </select>
      <input id={`${id}-q`} name={`${name}_q`} type="search" value={q} placeholder="Filter branches" aria-label={`Filter the ${label.toLowerCase()} branches`} maxLength={100} />
      {choices.total > choices.listed && (
        <span class="muted">
          {' '}
          {choices.listed} of {choices.total.toLocaleString('en-US')} {q ? `branches matching “${q}”` : 'branches'} listed: type part of a name and press Compare.
        </span>
      )}
    </p>
  );
}

interface FormValues {
  title: string;
  description: string;
}

/**
 * Compare view and the new merge request form (services/web/README.md#merge-requests-compare-repository-settings-site-admin): the branch pickers are a GET
 * form, the diff from the merge base to head is previewed, and the form below posts the merge
 * request with the anti-CSRF token.
 */
async function comparePage(ctx: PageContext, owner: string, name: string, opts: { error?: string; status?: number; values?: FormValues; refs?: { base: string; head: string } } = {}): Promise<PageResult> {
  const view = await loadRepoCounted(ctx.api, owner, name);
  const { repo } = view;
  const { base, head } = opts.refs ?? pickedRefs(ctx, view);
  const [baseQ, headQ] = [queryOf(ctx, 'base_q'), queryOf(ctx, 'head_q')];
  const [baseChoices, headChoices] = await Promise.all([branchChoices(ctx.api, owner, name, baseQ, base), branchChoices(ctx.api, owner, name, headQ, head)]);
  const chrome = chromeOf(repo, 'merge-requests', view.counts);
  let comparison: Comparison | undefined;
  let refusal: string | undefined;
  let status = opts.status ?? 200;
  if (head) {
    try {
      comparison = await ctx.api.get(apiPath('/api/repos/{owner}/{repo}/compare/{basehead}', { owner, repo: name, basehead: `${base}...${head}` }));
    } catch (err) {
      // The repository is readable (loadRepo passed): a missing ref or unrelated histories are
      // the person's choice to correct, said on the page.
      if (!(err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation'))) throw err;
      refusal = err.message;
      status = err.kind === 'not_found' ? 404 : 400;
    }
  }
  const mode: DiffViewMode = ctx.req.query.view === 'split' ? 'split' : 'unified';
  const here = mrPages.compare(owner, name, base, head);
  // A diff over the page's budget lists its files and shows one file's changes: the one asked for
  // (`?file=`), each loaded on demand as on the merge request page (docs/decisions/big-pages.md).
  const shown = typeof ctx.req.query.file === 'string' ? ctx.req.query.file : undefined;
  const hereWith = (params: Record<string, string>) => `${here}&${new URLSearchParams(params).toString()}`;
  const defaultTitle = comparison && comparison.commits.length === 1 ? subjectOf(comparison.commits[0]!.message) : head;
  // The merge request form needs both to be branches: asked only when it would be shown.
  const bothBranches = ctx.viewer && comparison && comparison.ahead_by > 0 && (await Promise.all([branchExists(ctx.api, owner, name, base), branchExists(ctx.api, owner, name, head)])).every(Boolean);
  return page(
    `Compare · ${repo.full_name}`,
    <>
      <h1 class="page-title">Compare changes</h1>
      <p class="muted">Choose the branch to merge into (base) and the branch with the changes (head).</p>
      <form method="get" action={mrPages.compare(owner, name)} class="compare-pickers">
        <BranchPicker id="compare-base" label="Base" name="base" value={base} q={baseQ} choices={baseChoices} />
        <span aria-hidden="true">←</span>
        <BranchPicker id="compare-head" label="Head" name="head" value={head} q={headQ} choices={headChoices} />
        <button type="submit">Compare</button>
      </form>
      <ErrorNotice error={opts.error} />
      {refusal && <Notice kind="error">{refusal}</Notice>}
      {comparison && (
        <>
          {comparison.status === 'identical' || comparison.ahead_by === 0 ? (
            <Notice kind="info">There is nothing to compare: {head} has no commits that {base} does not have.</Notice>
          ) : (
            <>
              <p>
                {comparison.ahead_by} {comparison.ahead_by === 1 ? 'commit' : 'commits'} of <strong>{head}</strong> not in <strong>{base}</strong>
                {comparison.behind_by > 0 && <> ({comparison.behind_by} behind)</>}.
              </p>
              {bothBranches ? (
                <form method="post" action={mrPages.create(owner, name)} class="stack mr-form">
                  <h2>Open a merge request</h2>
                  <CsrfField token={ctx.csrf} />
                  <input type="hidden" name="source_branch" value={head} />
                  <input type="hidden" name="target_branch" value={base} />
                  <label for="mr-title">Title</label>
                  <input id="mr-title" name="title" type="text" required maxLength={255} value={opts.values?.title ?? defaultTitle} />
                  <label for="mr-description">Description (Markdown)</label>
                  <textarea id="mr-description" name="description" rows={6}>
                    {opts.values?.description ?? ''}
                  </textarea>
                  <button type="submit" class="primary">
                    Create merge request
                  </button>
                </form>
              ) : ctx.viewer ? (
                <Notice kind="info">A merge request is between two branches.</Notice>
              ) : (
                <Notice kind="info">Sign in to open a merge request.</Notice>
              )}
              <h2>Commits</h2>
              <ol class="commit-list">
                {comparison.commits.map((c) => (
                  <CommitRow owner={owner} repo={name} commit={c} />
                ))}
              </ol>
              <DiffView
                files={comparison.diff}
                mode={mode}
                truncated={comparison.diff_truncated}
                toggleHref={(m) => hereWith({ view: m, ...(shown !== undefined ? { file: shown } : {}) })}
                onDemand={{ href: (path) => hereWith({ ...(mode === 'split' ? { view: 'split' } : {}), file: path }), shown }}
              />
            </>
          )}
        </>
      )}
    </>,
    { repo: chrome, status },
  );
}

async function createMergeRequest(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const values = { title: field(ctx.form, 'title').trim(), description: field(ctx.form, 'description') };
  const source = field(ctx.form, 'source_branch');
  const target = field(ctx.form, 'target_branch');
  // On a refusal the compare page is rendered again for this base and head, with what was typed.
  const refs = { base: target, head: source };
  if (!values.title) return comparePage(ctx, owner, name, { error: 'Give the merge request a title.', status: 400, values, refs });
  const body: Record<string, unknown> = { title: values.title, source_branch: source, target_branch: target };
  if (values.description.trim()) body.description = values.description;
  const done = await attempt(
    () => ctx.api.call('POST', apiPath('/api/repos/{owner}/{repo}/merge-requests', { owner, repo: name }), body),
    (message, status) => comparePage(ctx, owner, name, { error: message, status, values, refs }),
  );
  if (!done.ok) return done.result;
  return redirect(`${mrPages.show(owner, name, done.value.number)}?done=created`);
}

export const comparePages: PageDefinition[] = [
  // Kept (pages/page-cache.ts): a compare's answer has an ETag of the two refs' commits, so a
  // later view costs a 304 and the small calls beside it, not the whole diff rendered again.
  { method: 'GET', path: '/:owner/:repo/-/compare', keepable: true, handle: (ctx, p) => comparePage(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: '/:owner/:repo/-/merge-requests', signedIn: true, handle: (ctx, p) => createMergeRequest(ctx, p.owner!, p.repo!) },
];
