import { isFullOid } from '@githost/git-records/object-id';
import type { ComponentChildren } from 'preact';
import type { Branch, Commit, Repository, Tag, TreeEntry } from '../clients/types.js';
import { repoPages, repoUrl } from '../pages/paths.js';

/** A timestamp people read, with the exact one for machines and on hover. */
export function Time({ iso }: { iso: string }) {
  const date = new Date(iso);
  const text = Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  return <time datetime={iso}>{text}</time>;
}

export function shortSha(sha: string): string {
  return sha.slice(0, 8);
}

/** The first line of a commit message. */
export function subjectOf(message: string): string {
  return message.split('\n', 1)[0] ?? '';
}

/** `repo / dir / file`, each part a link to that directory at the ref. */
export function Breadcrumbs({ owner, repo, gitRef, path }: { owner: string; repo: string; gitRef: string; path: string }) {
  const parts = path.split('/').filter(Boolean);
  return (
    <nav aria-label="Path" class="breadcrumbs">
      <a href={repoPages.tree(owner, repo, gitRef)}>{repo}</a>
      {parts.map((part, i) => (
        <>
          <span aria-hidden="true">/</span>
          {i === parts.length - 1 ? <span aria-current="page">{part}</span> : <a href={repoPages.tree(owner, repo, gitRef, parts.slice(0, i + 1).join('/'))}>{part}</a>}
        </>
      ))}
    </nav>
  );
}

export type RefView = 'tree' | 'blob' | 'commits';

/** What a ref menu was filtered by and how many match in all (it lists one page of each). */
export interface RefMenuFilter {
  q: string;
  branches: number;
  tags: number;
}

/**
 * The ref switcher's filter: a plain GET form to the refs page (docs/decisions/ref-pages.md),
 * which site.js also asks as one types and puts its lists in place.
 */
function RefFilter({ owner, repo, current, path, view, q }: { owner: string; repo: string; current: string; path: string; view: RefView; q: string }) {
  return (
    <form method="get" action={repoUrl(owner, repo, '/-/refs')} role="search" class="ref-filter">
      <input type="hidden" name="view" value={view} />
      <input type="hidden" name="ref" value={current} />
      {path && <input type="hidden" name="path" value={path} />}
      <label for={`ref-q-${view}`} class="visually-hidden">
        Filter branches and tags
      </label>
      <input id={`ref-q-${view}`} type="search" name="q" value={q} maxLength={100} placeholder="Find a branch or tag…" autocomplete="off" />
      <button type="submit">Find</button>
    </form>
  );
}

/** The branches and tags to switch to, each a link to the same view and path at that ref. */
export function RefMenu({ owner, repo, current, path, branches, tags, view, filter }: { owner: string; repo: string; current: string; path: string; branches: Branch[]; tags: Tag[]; view: RefView; filter?: RefMenuFilter }) {
  const link = (ref: string) => (view === 'commits' ? repoPages.commits(owner, repo, ref) : view === 'blob' ? repoPages.blob(owner, repo, ref, path) : repoPages.tree(owner, repo, ref, path));
  const q = filter?.q ?? '';
  const withQ = (url: string) => (q ? `${url}?${new URLSearchParams({ q }).toString()}` : url);
  return (
    <div class="menu ref-menu">
      <RefFilter owner={owner} repo={repo} current={current} path={path} view={view} q={q} />
      <div class="ref-menu-lists">
        <p class="menu-title">Branches</p>
        {branches.length === 0 && <p class="muted">{q ? 'No branch matches.' : 'No branches.'}</p>}
        <ul>
          {branches.map((b) => (
            <li>
              <a href={link(b.name)} aria-current={b.name === current ? 'true' : undefined}>
                {b.name}
              </a>
              {b.isDefault && <span class="badge">default</span>}
            </li>
          ))}
        </ul>
        {filter && filter.branches > branches.length && (
          <p class="muted">
            {branches.length} of {filter.branches.toLocaleString('en-US')} shown: type more of the name, or <a href={withQ(repoPages.branches(owner, repo))}>see every branch</a>.
          </p>
        )}
        {(tags.length > 0 || (filter && filter.tags > 0)) && (
          <>
            <p class="menu-title">Tags</p>
            {tags.length === 0 && <p class="muted">No tag matches.</p>}
            <ul>
              {tags.map((t) => (
                <li>
                  <a href={link(t.name)} aria-current={t.name === current ? 'true' : undefined}>
                    {t.name}
                  </a>
                </li>
              ))}
            </ul>
            {filter && filter.tags > tags.length && (
              <p class="muted">
                {tags.length} of {filter.tags.toLocaleString('en-US')} shown: type more of the name, or <a href={withQ(repoPages.tags(owner, repo))}>see every tag</a>.
              </p>
            )}
          </>
        )}
      </div>
    </div>
  );
}

/**
 * Branches and tags as plain links in a disclosure (no script needed); a ref's name may hold
 * slashes, so each link names the ref and the current path, and the API splits them again.
 * Without `refs` the page did not ask for them (every repository page: a repository may have
 * thousands, bench "Big pages"): the disclosure holds the filter and a link to the refs page,
 * whose lists site.js loads into it when opened and again as one types.
 */
export function RefSwitcher({ owner, repo, current, path, refs, view }: { owner: string; repo: string; current: string; path: string; refs?: { branches: Branch[]; tags: Tag[] } | undefined; view: RefView }) {
  const menuUrl = repoPages.refs(owner, repo, view, current, path);
  return (
    <details class="ref-switcher" data-refs={refs ? undefined : menuUrl}>
      <summary>
        <span class="muted">ref:</span> <strong>{isFullOid(current) ? shortSha(current) : current}</strong>
      </summary>
      {refs ? (
        <RefMenu owner={owner} repo={repo} current={current} path={path} branches={refs.branches} tags={refs.tags} view={view} />
      ) : (
        <div class="menu ref-menu">
          <RefFilter owner={owner} repo={repo} current={current} path={path} view={view} q="" />
          <div class="ref-menu-lists">
            <p>
              <a href={menuUrl}>Switch branch or tag</a>
            </p>
          </div>
        </div>
      )}
    </details>
  );
}

/** The clone URL, selectable without script; site.js adds a copy button. The SSH URL beside it
 *  when the site serves SSH (README.md#ssh). */
export function CloneBox({ url, ssh }: { url: string; ssh?: string | undefined }) {
  return (
    <>
      <div class="clone-box">
        <label for="clone-url">Clone</label>
        <input id="clone-url" type="text" readonly value={url} data-copy="" />
      </div>
      {ssh && (
        <div class="clone-ssh">
          <label for="clone-url-ssh">SSH</label>
          <input id="clone-url-ssh" type="text" readonly value={ssh} data-copy="" />
        </div>
      )}
    </>
  );
}

const ENTRY_ICONS: Record<TreeEntry['type'], { label: string; path: string }> = {
  tree: { label: 'Folder', path: 'M1 3.5C1 2.7 1.7 2 2.5 2h3.6l1.6 1.6h5.8c.8 0 1.5.7 1.5 1.5v7.4c0 .8-.7 1.5-1.5 1.5h-11C1.7 14 1 13.3 1 12.5z' },
  blob: { label: 'File', path: 'M3.5 1h6L13 4.5v9c0 .8-.7 1.5-1.5 1.5h-8C2.7 15 2 14.3 2 13.5v-11C2 1.7 2.7 1 3.5 1zM9 1.5V5h3.5' },
  commit: { label: 'Submodule', path: 'M1 3.5C1 2.7 1.7 2 2.5 2h3.6l1.6 1.6h5.8c.8 0 1.5.7 1.5 1.5v7.4c0 .8-.7 1.5-1.5 1.5h-11C1.7 14 1 13.3 1 12.5zM6 8.5h4M8 6.5v4' },
};

/** A folder, file or submodule mark with its name for assistive technology. */
export function EntryIcon({ type }: { type: TreeEntry['type'] }) {
  const icon = ENTRY_ICONS[type] ?? ENTRY_ICONS.blob;
  return (
    <svg class={`icon icon-${type}`} role="img" aria-label={icon.label} viewBox="0 0 16 16" width="16" height="16">
      <path d={icon.path} />
    </svg>
  );
}

/** A directory listing: folders first as git lists them, each a link, each marked by its kind. */
export function TreeTable({ owner, repo, gitRef, entries, parentPath }: { owner: string; repo: string; gitRef: string; entries: TreeEntry[]; parentPath: string | undefined }) {
  const sorted = [...entries].sort((a, b) => (a.type === b.type ? 0 : a.type === 'tree' ? -1 : b.type === 'tree' ? 1 : 0));
  return (
    <table class="tree">
      <caption class="visually-hidden">Files</caption>
      <thead class="visually-hidden">
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Size</th>
        </tr>
      </thead>
      <tbody>
        {parentPath !== undefined && (
          <tr>
            <td>
              <a href={repoPages.tree(owner, repo, gitRef, parentPath)}>..</a>
            </td>
            <td></td>
          </tr>
        )}
        {sorted.map((e) => (
          <tr>
            <td>
              <EntryIcon type={e.type} />
              {e.type === 'tree' ? (
                <a href={repoPages.tree(owner, repo, gitRef, e.path)}>{e.name}</a>
              ) : e.type === 'commit' ? (
                <span title="Submodule">
                  {e.name} @ {shortSha(e.sha)}
                </span>
              ) : (
                <a href={repoPages.blob(owner, repo, gitRef, e.path)}>{e.name}</a>
              )}
            </td>
            <td class="num muted">{e.size === null ? '' : formatBytes(e.size)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** One commit in a list: subject linked to its page, author, date, short sha. */
export function CommitRow({ owner, repo, commit }: { owner: string; repo: string; commit: Commit }) {
  return (
    <li class="commit-row">
      <a href={repoPages.commit(owner, repo, commit.sha)} class="subject">
        {subjectOf(commit.message)}
      </a>
      <span class="muted">
        {commit.author.name} · <Time iso={commit.author.date} />
      </span>
      <code>
        <a href={repoPages.commit(owner, repo, commit.sha)}>{shortSha(commit.sha)}</a>
      </code>
    </li>
  );
}

/** Repositories as links with their visibility and description; `created`: with when each was made. */
export function RepoList({ repos, empty, created }: { repos: Repository[]; empty: string; created?: boolean }) {
  if (repos.length === 0) return <p class="muted">{empty}</p>;
  return (
    <ul class="repo-list">
      {repos.map((r) => (
        <li>
          <a href={repoUrl(r.owner, r.name)}>{r.full_name}</a>
          {r.private && <span class="badge">Private</span>}
          {created && (
            <span class="muted">
              Created <Time iso={r.created_at} />
            </span>
          )}
          {r.description && <p class="muted">{r.description}</p>}
        </li>
      ))}
    </ul>
  );
}

/** A form error or notice above a form. */
export function Notice({ kind, children }: { kind: 'error' | 'info'; children: ComponentChildren }) {
  return (
    <p class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}

/** Previous and next links of a paged list (`?page=`); a full page means there may be more. */
export function Pager({ href, page, full, label }: { href: (page: number) => string; page: number; full: boolean; label: string }) {
  if (page <= 1 && !full) return null;
  return (
    <nav class="pager" aria-label={label}>
      {page > 1 && (
        <a href={href(page - 1)} rel="prev">
          Previous page
        </a>
      )}{' '}
      {full && (
        <a href={href(page + 1)} rel="next">
          Next page
        </a>
      )}
    </nav>
  );
}

/** The `?page=` of a paged list: a positive integer, else 1. */
export function pageNumber(raw: unknown): number {
  const n = typeof raw === 'string' && /^[1-9][0-9]{0,5}$/.test(raw) ? Number(raw) : 1;
  return n;
}
