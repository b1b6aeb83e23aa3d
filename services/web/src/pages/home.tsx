import { AppError } from '@githost/errors';
import { apiPath } from '../clients/api.js';
import type { Activity, Repository, Viewer } from '../clients/types.js';
import { Notice, pageNumber, Pager, RepoList, Time } from '../views/components.js';
import { exploreRepositories } from './explore.js';
import { repoUrl, site } from './paths.js';
import { field, page, redirect, type PageContext, type PageDefinition, type PageResult } from './registry.js';

/** Repositories per page of a list (the API's most). */
const REPOS_PER_PAGE = 100;

/** How many repositories' activity the home page reads (one API call each). */
const ACTIVITY_REPOS = 10;
const ACTIVITY_ITEMS = 20;

/** How many of the newest repositories the anonymous home page lists. */
const WELCOME_REPOS = 10;

/** An activity entry in words; its data fields are the merge-requests service's (CONTRACT §8). */
function ActivityLine({ repo, entry }: { repo: Repository; entry: Activity }) {
  const number = typeof entry.data.mr_number === 'number' ? entry.data.mr_number : undefined;
  const title = typeof entry.data.mr_title === 'string' ? entry.data.mr_title : undefined;
  const what: Record<string, string> = { create_mr: 'Merge request opened', merge_mr: 'Merge request merged', close_mr: 'Merge request closed', reopen_mr: 'Merge request reopened' };
  return (
    <li>
      <span>{what[entry.action] ?? entry.action.replace(/_/g, ' ')}</span>
      {number !== undefined && <> #{number}</>}
      {title && <> “{title}”</>} in <a href={repoUrl(repo.owner, repo.name)}>{repo.full_name}</a> · <Time iso={entry.created_at} />
    </li>
  );
}

async function recentActivity(ctx: PageContext, repos: Repository[]) {
  const lists = await Promise.all(
    repos.slice(0, ACTIVITY_REPOS).map((repo) =>
      ctx.api.get(apiPath('/api/repos/{owner}/{repo}/activity', { owner: repo.owner, repo: repo.name })).then(
        (entries) => entries.map((entry) => ({ repo, entry })),
        // One repository's activity that cannot be read leaves the others on the page.
        () => [],
      ),
    ),
  );
  return lists
    .flat()
    .sort((a, b) => b.entry.created_at.localeCompare(a.entry.created_at))
    .slice(0, ACTIVITY_ITEMS);
}

async function homePage(ctx: PageContext): Promise<PageResult> {
  if (!ctx.viewer) {
    // Something to see before signing in: the newest public repositories, as Explore lists them.
    const repos = await exploreRepositories(ctx, '', 1, WELCOME_REPOS);
    return page(
      'githost',
      <>
        <section class="welcome">
          <h1 class="page-title">githost</h1>
          <p>Self-hosted git: push with git, browse and review on the web.</p>
          <p>
            <a class="button primary" href={site.signIn()}>
              Sign in
            </a>{' '}
            <a class="button" href={site.explore()}>
              Explore
            </a>
          </p>
        </section>
        <section aria-labelledby="newest-title">
          <h2 id="newest-title">Newest repositories</h2>
          <RepoList repos={repos} created empty="No public repositories yet." />
          {repos.length === WELCOME_REPOS && (
            <p>
              <a href={site.explore()}>All repositories</a>
            </p>
          )}
        </section>
      </>,
    );
  }
  const viewer: Viewer = ctx.viewer;
  const pageNo = pageNumber(ctx.req.query.page);
  const repos = await ctx.api.get(apiPath('/api/user/repos', {}, `?per_page=${REPOS_PER_PAGE}&page=${pageNo}`));
  const own = repos.filter((r) => r.owner === viewer.username);
  const shared = repos.filter((r) => r.owner !== viewer.username);
  const activity = await recentActivity(ctx, repos);
  return page(
    'Home',
    <div class="columns">
      <section aria-labelledby="own-title">
        <h1 id="own-title" class="page-title">
          Your repositories
        </h1>
        <p>
          <a class="button" href={site.newRepo()}>
            New repository
          </a>
        </p>
        <RepoList repos={own} empty="You have no repositories yet." />
        <h2>Repositories you collaborate on</h2>
        <RepoList repos={shared} empty="None yet." />
        <Pager href={(n) => `${site.home()}?page=${n}`} page={pageNo} full={repos.length === REPOS_PER_PAGE} label="Repository pages" />
      </section>
      <section aria-labelledby="activity-title">
        <h2 id="activity-title">Recent activity</h2>
        {activity.length === 0 ? (
          <p class="muted">Nothing yet.</p>
        ) : (
          <ul class="activity">
            {activity.map(({ repo, entry }) => (
              <ActivityLine repo={repo} entry={entry} />
            ))}
          </ul>
        )}
      </section>
    </div>,
  );
}

function NewRepoForm({ ctx, error, values }: { ctx: PageContext; error?: string | undefined; values?: Record<string, string> }) {
  const v = values ?? {};
  return (
    <section class="narrow">
      <h1 class="page-title">New repository</h1>
      {error && <Notice kind="error">{error}</Notice>}
      <form method="post" action={site.newRepo()} class="stack">
        <input type="hidden" name="csrf" value={ctx.csrf} />
        <label for="repo-name">Name</label>
        <input id="repo-name" name="name" type="text" required maxLength={100} value={v.name ?? ''} aria-describedby="repo-name-help" />
        <p id="repo-name-help" class="muted">
          Letters, digits, '-', '_' and '.'.
        </p>
        <label for="repo-description">Description (optional)</label>
        <input id="repo-description" name="description" type="text" value={v.description ?? ''} />
        <label for="repo-branch">Default branch</label>
        <input id="repo-branch" name="default_branch" type="text" value={v.default_branch || 'main'} />
        <label class="check">
          <input type="checkbox" name="private" value="true" checked={v.private === 'true'} /> Private: only you and collaborators can see it
        </label>
        <button type="submit" class="primary">Create repository</button>
      </form>
    </section>
  );
}

async function createRepo(ctx: PageContext): Promise<PageResult> {
  const values = { name: field(ctx.form, 'name').trim(), description: field(ctx.form, 'description').trim(), default_branch: field(ctx.form, 'default_branch').trim(), private: field(ctx.form, 'private') };
  const body: Record<string, unknown> = { name: values.name, private: values.private === 'true' };
  if (values.description) body.description = values.description;
  if (values.default_branch) body.default_branch = values.default_branch;
  try {
    const repo = await ctx.api.call('POST', apiPath('/api/repos'), body);
    return redirect(repoUrl(repo.owner, repo.name));
  } catch (err) {
    if (err instanceof AppError && (err.kind === 'validation' || err.kind === 'conflict' || err.kind === 'forbidden')) {
      return page('New repository', <NewRepoForm ctx={ctx} error={err.message} values={values} />, { status: err.kind === 'conflict' ? 409 : 400 });
    }
    throw err;
  }
}

async function userPage(ctx: PageContext, username: string): Promise<PageResult> {
  const pageNo = pageNumber(ctx.req.query.page);
  const repos = await ctx.api.get(apiPath('/api/users/{username}/repos', { username }, `?per_page=${REPOS_PER_PAGE}&page=${pageNo}`));
  return page(
    username,
    <section>
      <h1 class="page-title">{username}</h1>
      <h2>Repositories</h2>
      <RepoList repos={repos} empty="No repositories you can see." />
      <Pager href={(n) => `${site.user(username)}?page=${n}`} page={pageNo} full={repos.length === REPOS_PER_PAGE} label="Repository pages" />
    </section>,
  );
}

export const homePages: PageDefinition[] = [
  { method: 'GET', path: '/', readsViewerFirst: true, handle: homePage },
  { method: 'GET', path: '/-/new', signedIn: true, handle: async (ctx) => page('New repository', <NewRepoForm ctx={ctx} />) },
  { method: 'POST', path: '/-/new', signedIn: true, handle: createRepo },
];

/** After every `/-/` page, so a user page never shadows one of the site's own. */
export const userPages: PageDefinition[] = [{ method: 'GET', path: '/:owner', handle: (ctx, p) => userPage(ctx, p.owner!) }];
