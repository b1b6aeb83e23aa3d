import { apiPath } from '../../clients/api.js';
import { CsrfField } from '../../views/forms.js';
import { repoPages } from '../paths.js';
import { field, page, type PageContext, type PageResult } from '../registry.js';
import { ownedRepoChrome, settingsChange, SettingsFrame, type ViewOpts } from './frame.js';

export async function generalPage(ctx: PageContext, owner: string, name: string, opts: ViewOpts = {}): Promise<PageResult> {
  const { repo, chrome } = await ownedRepoChrome(ctx, owner, name);
  const branches = await ctx.api.get(apiPath('/api/repos/{owner}/{repo}/branches', { owner, repo: name }));
  const action = repoPages.settings(owner, name);
  return page(
    `Settings · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="general" error={opts.error}>
      <form method="post" action={action} class="stack narrow">
        <CsrfField token={ctx.csrf} />
        <label for="repo-description">Description</label>
        <input id="repo-description" name="description" type="text" maxLength={1000} value={repo.description ?? ''} />
        <label for="repo-default-branch">Default branch</label>
        {branches.branches.length === 0 ? (
          <input id="repo-default-branch" name="default_branch" type="text" value={repo.default_branch} />
        ) : (
          <select id="repo-default-branch" name="default_branch">
            {branches.branches.map((b) => (
              <option value={b.name} selected={b.name === repo.default_branch}>
                {b.name}
              </option>
            ))}
          </select>
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
