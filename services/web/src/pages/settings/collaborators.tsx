import { apiPath } from '../../clients/api.js';
import { CsrfField, PostButton } from '../../views/forms.js';
import { repoPages } from '../paths.js';
import { field, page, type PageContext, type PageResult } from '../registry.js';
import { ownedRepoChrome, settingsChange, SettingsFrame, userNotFound, type ViewOpts } from './frame.js';

export async function collaboratorsPage(ctx: PageContext, owner: string, name: string, opts: ViewOpts = {}): Promise<PageResult> {
  const { repo, chrome } = await ownedRepoChrome(ctx, owner, name);
  const list = await ctx.api.get(apiPath('/api/repos/{owner}/{repo}/collaborators', { owner, repo: name }, '?per_page=100'));
  const action = repoPages.settings(owner, name, 'collaborators');
  return page(
    `Collaborators · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="collaborators" error={opts.error}>
      {list.length === 0 ? (
        <p>No collaborators yet.</p>
      ) : (
        <ul class="item-list">
          {list.map((c) => (
            <li>
              <div>
                <strong>{c.username}</strong> <span class="badge">{c.permission}</span>
              </div>
              <PostButton ctx={ctx} action={`${action}/remove`} fields={{ username: c.username }} label="Remove" kind="danger" />
            </li>
          ))}
        </ul>
      )}
      <form method="post" action={action} class="stack narrow">
        <h2>Add or change a collaborator</h2>
        <CsrfField token={ctx.csrf} />
        <label for="collaborator-username">Username</label>
        <input id="collaborator-username" name="username" type="text" required />
        <label for="collaborator-permission">Permission</label>
        <select id="collaborator-permission" name="permission">
          <option value="read">read</option>
          <option value="write" selected>
            write
          </option>
        </select>
        <button type="submit" class="primary">
          Save collaborator
        </button>
      </form>
    </SettingsFrame>,
    { repo: chrome, ...(opts.status ? { status: opts.status } : {}) },
  );
}

export function putCollaborator(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const username = field(ctx.form, 'username').trim();
  const again = (o: ViewOpts) => collaboratorsPage(ctx, owner, name, o);
  if (!username) return again({ error: 'Enter a username.', status: 400 });
  return settingsChange(ctx, owner, name, 'collaborators', () => ctx.api.call('PUT', apiPath('/api/repos/{owner}/{repo}/collaborators/{username}', { owner, repo: name, username }), { permission: field(ctx.form, 'permission') }).catch(userNotFound), 'collaborator-added', again);
}

export function removeCollaborator(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const username = field(ctx.form, 'username');
  return settingsChange(ctx, owner, name, 'collaborators', () => ctx.api.call('DELETE', apiPath('/api/repos/{owner}/{repo}/collaborators/{username}', { owner, repo: name, username })).catch(userNotFound), 'collaborator-removed', (o) => collaboratorsPage(ctx, owner, name, o));
}
