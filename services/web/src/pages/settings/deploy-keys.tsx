import { apiPath } from '../../clients/api.js';
import { keyBodyOf, NewSshKeyForm, SshKeyList, type KeyFormValues } from '../../views/ssh-keys.js';
import { repoPages } from '../paths.js';
import { field, page, type PageContext, type PageResult } from '../registry.js';
import { chromeOf, ownedRepo, settingsChange, SettingsFrame, type ViewOpts } from './frame.js';

type DeployKeyOpts = ViewOpts & { values?: KeyFormValues };

/** docs/decisions/ssh-keys.md: a repository's deploy keys, the owner's and a site admin's. */
export async function deployKeysPage(ctx: PageContext, owner: string, name: string, opts: DeployKeyOpts = {}): Promise<PageResult> {
  const repo = await ownedRepo(ctx, owner, name);
  const keys = await ctx.api.get(apiPath('/api/repos/{owner}/{repo}/keys', { owner, repo: name }));
  const action = repoPages.settings(owner, name, 'keys');
  return page(
    `Deploy keys · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="keys" error={opts.error}>
      <p>A deploy key lets one machine clone this repository (and push, with write access) over SSH without a user's account.</p>
      <SshKeyList ctx={ctx} keys={keys} deleteAction={(id) => `${action}/${id}/delete`} empty="No deploy keys yet." />
      <NewSshKeyForm ctx={ctx} action={action} heading="Add a deploy key" deployKey={true} values={opts.values} />
    </SettingsFrame>,
    { repo: chromeOf(repo), ...(opts.status ? { status: opts.status } : {}) },
  );
}

export function addDeployKey(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const values = { title: field(ctx.form, 'title'), key: field(ctx.form, 'key'), write: field(ctx.form, 'write') === 'on' };
  return settingsChange(ctx, owner, name, 'keys', () => ctx.api.call('POST', apiPath('/api/repos/{owner}/{repo}/keys', { owner, repo: name }), keyBodyOf(values, true)), 'key-added', (o) => deployKeysPage(ctx, owner, name, { ...o, values }));
}

export function deleteDeployKey(ctx: PageContext, owner: string, name: string, id: string): Promise<PageResult> {
  return settingsChange(ctx, owner, name, 'keys', () => ctx.api.call('DELETE', apiPath('/api/repos/{owner}/{repo}/keys/{key_id}', { owner, repo: name, key_id: id })), 'key-deleted', (o) => deployKeysPage(ctx, owner, name, o));
}
