import { apiPath } from '../../clients/api.js';
import { branchChoices } from '../repo-data.js';
import { CsrfField } from '../../views/forms.js';
import { repoPages } from '../paths.js';
import { field, page, type PageContext, type PageResult } from '../registry.js';
import { ownedRepoChrome, settingsChange, SettingsFrame, type ViewOpts } from './frame.js';

export async function generalPage(ctx: PageContext, owner: string, name: string, opts: ViewOpts = {}): Promise<PageResult> {
  const { repo, chrome } = await ownedRepoChrome(ctx, owner, name);
  // At most BRANCH_CHOICES_MAX branches holding ?q=, never every one (docs/decisions/ref-pages.md#choosing-a-branch).
  const q = typeof ctx.req.query.q === 'string' ? ctx.req.query.q : '';
  const choices = await branchChoices(ctx.api, owner, name, q, repo.default_branch);
  const action = repoPages.settings(owner, name);
  return page(
    `Settings · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="general" error={opts.error}>
      {/* The branch filter's own GET form: its field and button sit in the form below (form=). */}
      <form id="default-branch-filter" method="get" action={action} />
      <form method="post" action={action} class="stack narrow">
        <CsrfField token={ctx.csrf} />
        <label for="repo-description">Description</label>
        <input id="repo-description" name="description" type="text" maxLength={1000} value={repo.description ?? ''} />
        <label for="repo-default-branch">Default branch</label>
        {choices.total === 0 && !q ? (
          <input id="repo-default-branch" name="default_branch" type="text" value={repo.default_branch} />
        ) : (
          <>
            <select id="repo-default-branch" name="default_branch">
              {choices.names.map((n) => (
                <option value={n} selected={n === repo.default_branch}>
                  {n}
                </option>
              ))}
            </select>
            <p class="picker">
              <input id="default-branch-q" form="default-branch-filter" name="q" type="search" value={q} placeholder="Filter branches" aria-label="Filter the branches" maxLength={100} />
              <button type="submit" form="default-branch-filter">
                Filter
              </button>
              {choices.total > choices.listed && (
                <span class="muted">
                  {' '}
                  {choices.listed} of {choices.total.toLocaleString('en-US')} {q ? `branches matching “${q}”` : 'branches'} listed: filter by part of a name.
                </span>
              )}
              {q && choices.total === 0 && <span class="muted"> No branch matches “{q}”.</span>}
            </p>
          </>
        )}
        <fieldset>
          <legend>Visibility</legend>
          <label class="check">
            <input type="radio" name="visibility" value="public" checked={!repo.private} /> Public: anyone can read it
          </label>
          <label class="check">
            <input type="radio" name="visibility" value="private" checked={repo.private} /> Private: only you and collaborators
          </label>
        </fieldset>
        <button type="submit" class="primary">
          Save
        </button>
      </form>
    </SettingsFrame>,
    { repo: chrome, ...(opts.status ? { status: opts.status } : {}) },
  );
}

export function saveGeneral(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const visibility = field(ctx.form, 'visibility');
  const body: Record<string, unknown> = { description: field(ctx.form, 'description').trim() || null, default_branch: field(ctx.form, 'default_branch').trim() };
  if (visibility === 'public' || visibility === 'private') body.private = visibility === 'private';
  return settingsChange(ctx, owner, name, '', () => ctx.api.call('PATCH', apiPath('/api/repos/{owner}/{repo}', { owner, repo: name }), body), 'saved', (o) => generalPage(ctx, owner, name, o));
}
