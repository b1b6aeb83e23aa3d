import { isFullOid } from '@githost/git-records/object-id';
import { apiPath } from '../clients/api.js';
import type { Commit } from '../clients/types.js';
import { CommitRow, Notice, pageNumber, Pager, RefSwitcher, shortSha, subjectOf, Time } from '../views/components.js';
import { DiffView, type DiffViewMode } from '../views/diff.js';
import { repoPages } from './paths.js';
import { chromeOf, loadRepoCounted, refListPage } from './repo-data.js';
import { page, type PageContext, type PageDefinition, type PageResult } from './registry.js';

/** Commits per page of history. */
export const COMMITS_PER_PAGE = 30;

/**
 * History of a ref, a page at a time. The API has no offset, only a start and a limit, so a page
 * asks for one commit more than it shows: that one starts the next page (`?after=<sha>`), and
 * the ref's name stays in the URL for the tabs and the ref switcher.
 */
async function commitsPage(ctx: PageContext, owner: string, name: string, refParam: string): Promise<PageResult> {
  const view = await loadRepoCounted(ctx.api, owner, name);
  const { repo } = view;
  const gitRef = refParam || repo.default_branch;
  const after = typeof ctx.req.query.after === 'string' && isFullOid(ctx.req.query.after) ? ctx.req.query.after : undefined;
  const chrome = chromeOf(repo, 'commits', view.counts, gitRef);
  if (view.counts?.branches === 0 && view.counts.tags === 0) {
    return page(`Commits · ${repo.full_name}`, <Notice kind="info">This repository has no commits yet.</Notice>, { repo: chrome });
  }
  const log = await ctx.api.get(apiPath('/api/repos/{owner}/{repo}/commits/{ref}', { owner, repo: name, ref: after ?? gitRef }, `?limit=${COMMITS_PER_PAGE + 1}`));
  const shown = log.commits.slice(0, COMMITS_PER_PAGE);
  const next = log.commits[COMMITS_PER_PAGE];
  const here = repoPages.commits(owner, name, gitRef);
  return page(
    `Commits at ${gitRef} · ${repo.full_name}`,
    <>
      <div class="repo-top">
        <RefSwitcher owner={owner} repo={name} current={gitRef} path="" view="commits" />
        <h1 class="page-title">Commits</h1>
      </div>
      <ol class="commit-list">
        {shown.map((c) => (
          <CommitRow owner={owner} repo={name} commit={c} />
        ))}
      </ol>
      <nav class="pager" aria-label="Pages">
        {after && <a href={here}>Newest</a>}
        {next && <a href={`${here}?after=${next.sha}`} rel="next">Older</a>}
      </nav>
    </>,
    { repo: chrome },
  );
}

function Person({ label, who }: { label: string; who: Commit['author'] }) {
  return (
    <p>
      <span class="muted">{label}:</span> {who.name} &lt;{who.email}&gt; · <Time iso={who.date} />
    </p>
  );
}

/** A commit: its message, people, parents and its diff against its first parent. */
async function commitPage(ctx: PageContext, owner: string, name: string, sha: string): Promise<PageResult> {
  const view = await loadRepoCounted(ctx.api, owner, name);
  const { repo } = view;
  const commit = await ctx.api.get(apiPath('/api/repos/{owner}/{repo}/commit/{sha}', { owner, repo: name, sha }));
  const parent = commit.parents[0];
  // The diff against the first parent is a three-dot compare of the parent and the commit: their
  // merge base is the parent itself. A root commit has nothing to compare against.
  const comparison = parent ? await ctx.api.get(apiPath('/api/repos/{owner}/{repo}/compare/{basehead}', { owner, repo: name, basehead: `${parent}...${commit.sha}` })) : undefined;
  const mode: DiffViewMode = ctx.req.query.view === 'split' ? 'split' : 'unified';
  const here = repoPages.commit(owner, name, commit.sha);
  const shown = typeof ctx.req.query.file === 'string' ? ctx.req.query.file : undefined;
  const [subject, ...rest] = commit.message.split('\n');
  const body = rest.join('\n').trim();
  return page(
    `${subjectOf(commit.message)} · ${shortSha(commit.sha)} · ${repo.full_name}`,
    <>
      <article class="commit">
        <h1 class="page-title">{subject}</h1>
        {body && <pre class="commit-body">{body}</pre>}
        <Person label="Author" who={commit.author} />
        {(commit.committer.name !== commit.author.name || commit.committer.email !== commit.author.email) && <Person label="Committer" who={commit.committer} />}
        <p>
          <span class="muted">Commit:</span> <code>{commit.sha}</code>
        </p>
        <p>
          <span class="muted">{commit.parents.length === 1 ? 'Parent' : 'Parents'}:</span>{' '}
          {commit.parents.length === 0
            ? 'none (root commit)'
            : commit.parents.map((p, i) => (
                <>
                  {i > 0 && ', '}
                  <a href={repoPages.commit(owner, name, p)}>
                    <code>{shortSha(p)}</code>
                  </a>
                </>
              ))}
        </p>
        <p>
          <a href={repoPages.tree(owner, name, commit.sha)}>Browse files at this commit</a>
        </p>
      </article>
      {comparison ? (
        <DiffView
          files={comparison.diff}
          mode={mode}
          truncated={comparison.diff_truncated}
          toggleHref={(m) => `${here}?${new URLSearchParams({ view: m, ...(shown !== undefined ? { file: shown } : {}) }).toString()}`}
          onDemand={{ href: (path) => `${here}?${new URLSearchParams({ ...(mode === 'split' ? { view: 'split' } : {}), file: path }).toString()}`, shown }}
        />
      ) : (
        <Notice kind="info">This is the first commit: every file in it is new.</Notice>
      )}
    </>,
    { repo: chromeOf(repo, 'commits', view.counts) },
  );
}

/** Branches or tags a page of their list shows. */
export const REFS_PER_PAGE = 50;

/** A branches or tags page's `?q=` as typed (cut to what the API takes) and `?page=`. */
function listParams(ctx: PageContext): { q: string; pageNo: number } {
  const q = typeof ctx.req.query.q === 'string' ? ctx.req.query.q.slice(0, 100) : '';
  return { q, pageNo: pageNumber(ctx.req.query.page) };
}

/** The name filter of a branches or tags page: a plain GET form (docs/decisions/ref-pages.md). */
function RefListFilter({ action, q, kind }: { action: string; q: string; kind: 'branches' | 'tags' }) {
  return (
    <form method="get" action={action} role="search" class="filter">
      <label for="refs-q" class="visually-hidden">
        {kind === 'branches' ? 'Filter branches by name' : 'Filter tags by name'}
      </label>
      <input id="refs-q" type="search" name="q" value={q} maxLength={100} placeholder={kind === 'branches' ? 'Find a branch…' : 'Find a tag…'} />
      <button type="submit">Filter</button>
    </form>
  );
}

/** `?q=&page=` of a branches or tags page. */
function listHref(base: string, q: string, pageNo: number): string {
  const params = new URLSearchParams({ ...(q ? { q } : {}), ...(pageNo > 1 ? { page: String(pageNo) } : {}) }).toString();
  return params ? `${base}?${params}` : base;
}

/** How many a list holds and which of them this page shows. */
function Shown({ total, pageNo, count, q, noun }: { total: number; pageNo: number; count: number; q: string; noun: [string, string] }) {
  if (total === 0) return null;
  const first = (pageNo - 1) * REFS_PER_PAGE + 1;
  const what = `${total.toLocaleString('en-US')} ${total === 1 ? noun[0] : noun[1]}${q ? ` matching “${q}”` : ''}`;
  return <p class="muted">{count === total ? what : count === 0 ? `${what}; none on this page.` : `${what}; ${first.toLocaleString('en-US')}–${(first + count - 1).toLocaleString('en-US')} shown.`}</p>;
}

/** One page of the branches in name order, filtered on the server by `?q=` (docs/decisions/ref-pages.md). */
async function branchesPage(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const { q, pageNo } = listParams(ctx);
  const [view, list] = await Promise.all([loadRepoCounted(ctx.api, owner, name), refListPage(ctx.api, owner, name, 'branches', q, pageNo, REFS_PER_PAGE)]);
  const { repo } = view;
  const base = repoPages.branches(owner, name);
  return page(
    `Branches · ${repo.full_name}`,
    <>
      <h1 class="page-title">Branches</h1>
      <RefListFilter action={base} q={q} kind="branches" />
      <Shown total={list.total} pageNo={pageNo} count={list.branches.length} q={q} noun={['branch', 'branches']} />
      {list.branches.length === 0 ? (
        <p>{q ? `No branch has “${q}” in its name.` : pageNo > 1 ? 'No branches on this page.' : 'No branches yet.'}</p>
      ) : (
        <ul class="ref-list">
          {list.branches.map((b) => (
            <li>
              <a href={repoPages.tree(owner, name, b.name)}>{b.name}</a>
              {b.isDefault && <span class="badge">default</span>}
              <a href={repoPages.commit(owner, name, b.sha)} class="muted">
                <code>{shortSha(b.sha)}</code>
              </a>
              <a href={repoPages.commits(owner, name, b.name)}>History</a>
            </li>
          ))}
        </ul>
      )}
      <Pager href={(n) => listHref(base, q, n)} page={pageNo} full={pageNo * REFS_PER_PAGE < list.total} label="Branch pages" />
    </>,
    { repo: chromeOf(repo, 'branches', view.counts) },
  );
}

/** One page of the tags in name order, filtered as the branches are. */
async function tagsPage(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const { q, pageNo } = listParams(ctx);
  const [view, list] = await Promise.all([loadRepoCounted(ctx.api, owner, name), refListPage(ctx.api, owner, name, 'tags', q, pageNo, REFS_PER_PAGE)]);
  const { repo } = view;
  const base = repoPages.tags(owner, name);
  return page(
    `Tags · ${repo.full_name}`,
    <>
      <h1 class="page-title">Tags</h1>
      <RefListFilter action={base} q={q} kind="tags" />
      <Shown total={list.total} pageNo={pageNo} count={list.tags.length} q={q} noun={['tag', 'tags']} />
      {list.tags.length === 0 ? (
        <p>{q ? `No tag has “${q}” in its name.` : pageNo > 1 ? 'No tags on this page.' : 'No tags yet.'}</p>
      ) : (
        <ul class="ref-list">
          {list.tags.map((t) => (
            <li>
              <a href={repoPages.tree(owner, name, t.name)}>{t.name}</a>
              <a href={repoPages.commit(owner, name, t.sha)} class="muted">
                <code>{shortSha(t.sha)}</code>
              </a>
              <a href={repoPages.archive(owner, name, t.name, 'zip')}>zip</a>
              <a href={repoPages.archive(owner, name, t.name, 'tar.gz')}>tar.gz</a>
            </li>
          ))}
        </ul>
      )}
      <Pager href={(n) => listHref(base, q, n)} page={pageNo} full={pageNo * REFS_PER_PAGE < list.total} label="Tag pages" />
    </>,
    { repo: chromeOf(repo, 'tags', view.counts) },
  );
}

export const historyPages: PageDefinition[] = [
  { method: 'GET', path: '/:owner/:repo/-/commits{/*rest}', handle: (ctx, p) => commitsPage(ctx, p.owner!, p.repo!, p.rest ?? '') },
  { method: 'GET', path: '/:owner/:repo/-/commit/:sha', handle: (ctx, p) => commitPage(ctx, p.owner!, p.repo!, p.sha!) },
  { method: 'GET', path: '/:owner/:repo/-/branches', handle: (ctx, p) => branchesPage(ctx, p.owner!, p.repo!) },
  { method: 'GET', path: '/:owner/:repo/-/tags', handle: (ctx, p) => tagsPage(ctx, p.owner!, p.repo!) },
];

