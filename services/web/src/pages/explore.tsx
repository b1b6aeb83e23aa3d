import { apiPath } from '../clients/api.js';
import type { ComponentChildren } from 'preact';
import type { Repository } from '../clients/types.js';
import { pageNumber, Pager, RepoList, Time } from '../views/components.js';
import { site } from './paths.js';
import { page, type PageContext, type PageDefinition, type PageResult } from './registry.js';

/** Items per page of an explore list. */
export const EXPLORE_PER_PAGE = 30;

type ExploreTab = 'repositories' | 'users';

/** The `?q=` of a list as typed (the API trims it and refuses one over its limit). */
function filterOf(ctx: PageContext): string {
  const q = ctx.req.query.q;
  return typeof q === 'string' ? q : '';
}

/** `GET /api/repos` as the person asking: what they may read, newest first (docs/decisions/explore-lists.md). */
export function exploreRepositories(ctx: PageContext, q: string, pageNo: number, perPage = EXPLORE_PER_PAGE): Promise<Repository[]> {
  return ctx.api.get(apiPath('/api/repos', {}, `?${listQuery(q, pageNo, perPage)}`));
}

/** The API's `q`, `per_page` and `page` of an explore list. */
function listQuery(q: string, pageNo: number, perPage = EXPLORE_PER_PAGE): string {
  return new URLSearchParams({ ...(q ? { q } : {}), per_page: String(perPage), page: String(pageNo) }).toString();
}

function ExploreFrame({ tab, q, children }: { tab: ExploreTab; q: string; children: ComponentChildren }) {
  const action = tab === 'users' ? site.exploreUsers() : site.explore();
  return (
    <section aria-labelledby="explore-title">
      <h1 id="explore-title" class="page-title">
        Explore
      </h1>
      <nav aria-label="Explore" class="tabs">
        <a href={site.explore(q)} aria-current={tab === 'repositories' ? 'page' : undefined}>
          Repositories
        </a>
        <a href={site.exploreUsers(q)} aria-current={tab === 'users' ? 'page' : undefined}>
          Users
        </a>
      </nav>
      <form method="get" action={action} role="search" class="filter">
        <label for="explore-q" class="visually-hidden">
          {tab === 'users' ? 'Filter users by name' : 'Filter repositories by name'}
        </label>
        <input id="explore-q" type="search" name="q" value={q} maxLength={100} placeholder={tab === 'users' ? 'Find a user…' : 'Find a repository…'} />
        <button type="submit">Filter</button>
      </form>
      {children}
    </section>
  );
}

async function repositoriesPage(ctx: PageContext): Promise<PageResult> {
  const q = filterOf(ctx);
  const pageNo = pageNumber(ctx.req.query.page);
  const repos = await exploreRepositories(ctx, q, pageNo);
  return page(
    'Explore repositories',
    <ExploreFrame tab="repositories" q={q}>
      <RepoList repos={repos} created empty={q ? `No repository you can see has “${q}” in its name.` : 'No repositories you can see yet.'} />
      <Pager href={(n) => site.explore(q, n)} page={pageNo} full={repos.length === EXPLORE_PER_PAGE} label="Repository pages" />
    </ExploreFrame>,
  );
}

async function usersPage(ctx: PageContext): Promise<PageResult> {
  const q = filterOf(ctx);
  const pageNo = pageNumber(ctx.req.query.page);
  const users = await ctx.api.get(apiPath('/api/users', {}, `?${listQuery(q, pageNo)}`));
  return page(
    'Explore users',
    <ExploreFrame tab="users" q={q}>
      {users.length === 0 ? (
        <p class="muted">{q ? `No user has “${q}” in their name.` : 'No users yet.'}</p>
      ) : (
        <ul class="repo-list">
          {users.map((u) => (
            <li>
              <a href={site.user(u.username)}>{u.username}</a>
              <span class="muted">
                Joined <Time iso={u.created_at} />
              </span>
            </li>
          ))}
        </ul>
      )}
      <Pager href={(n) => site.exploreUsers(q, n)} page={pageNo} full={users.length === EXPLORE_PER_PAGE} label="User pages" />
    </ExploreFrame>,
  );
}

export const explorePages: PageDefinition[] = [
  { method: 'GET', path: '/-/explore', handle: repositoriesPage },
  { method: 'GET', path: '/-/explore/users', handle: usersPage },
];
