import { MAX_REQUIRED_APPROVALS } from '@githost/ref-policy';
import { apiPath } from '../../clients/api.js';
import { CsrfField, PostButton } from '../../views/forms.js';
import { repoPages } from '../paths.js';
import { field, fields, page, type PageContext, type PageResult } from '../registry.js';
import { ownedRepoChrome, settingsChange, SettingsFrame, userNotFound, type ViewOpts } from './frame.js';

export async function branchesPage(ctx: PageContext, owner: string, name: string, opts: ViewOpts = {}): Promise<PageResult> {
  const { repo, chrome } = await ownedRepoChrome(ctx, owner, name);
  const rules = await ctx.api.get(apiPath('/api/repos/{owner}/{repo}/branch-protections', { owner, repo: name }));
  const action = repoPages.settings(owner, name, 'branches');
  return page(
    `Branch protection · ${repo.full_name}`,
    <SettingsFrame ctx={ctx} repo={repo} section="branches" error={opts.error}>
      {rules.length === 0 ? (
        <p>No branch is protected.</p>
      ) : (
        <ul class="item-list">
          {rules.map((r) => (
            <li>
              <div>
                <strong>
                  <code>{r.pattern}</code>
                </strong>
                <p class="muted">
                  push: {r.push} · {r.required_approvals} required {r.required_approvals === 1 ? 'approval' : 'approvals'}
                  {r.required_status_checks.length > 0 && <> · checks: {r.required_status_checks.join(', ')}</>}
                  {r.allow_force_pushes && ' · force pushes allowed'}
                  {r.allow_deletions && ' · deletion allowed'}
                  {r.dismiss_stale_approvals ? ' · stale approvals dismissed' : ''}
                </p>
              </div>
              <PostButton ctx={ctx} action={`${action}/delete`} fields={{ pattern: r.pattern }} label="Delete" kind="danger" />
            </li>
          ))}
        </ul>
      )}
      <form method="post" action={action} class="stack narrow">
        <h2>Add or replace a rule</h2>
        <CsrfField token={ctx.csrf} />
        <label for="protection-pattern">Branch name pattern</label>
        <input id="protection-pattern" name="pattern" type="text" required placeholder="main or release/*" />
        <label for="protection-approvals">Required approvals</label>
        <input id="protection-approvals" name="required_approvals" type="number" min={0} max={MAX_REQUIRED_APPROVALS} value="0" />
        <label for="protection-checks">Required status checks (comma-separated contexts)</label>
        <input id="protection-checks" name="required_status_checks" type="text" />
        <label for="protection-push">Who may push</label>
        <select id="protection-push" name="push">
          <option value="write">Writers</option>
          <option value="admin">Only the owner</option>
          <option value="nobody">Nobody (merge requests only)</option>
        </select>
        <label class="check">
          <input type="checkbox" name="options" value="allow_force_pushes" /> Allow force pushes
        </label>
        <label class="check">
          <input type="checkbox" name="options" value="allow_deletions" /> Allow deletion
        </label>
        <label class="check">
          <input type="checkbox" name="options" value="dismiss_stale_approvals" checked /> Dismiss approvals when new commits are pushed
        </label>
        <button type="submit" class="primary">
          Save rule
        </button>
      </form>
    </SettingsFrame>,
    { repo: chrome, ...(opts.status ? { status: opts.status } : {}) },
  );
}

export function putProtection(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const pattern = field(ctx.form, 'pattern').trim();
  const again = (o: ViewOpts) => branchesPage(ctx, owner, name, o);
  if (!pattern) return again({ error: 'Enter a branch name pattern.', status: 400 });
  const approvals = Number(field(ctx.form, 'required_approvals') || '0');
  if (!Number.isInteger(approvals) || approvals < 0 || approvals > MAX_REQUIRED_APPROVALS) return again({ error: `Required approvals must be a whole number from 0 to ${MAX_REQUIRED_APPROVALS}.`, status: 400 });
  const options = fields(ctx.form, 'options');
  const push = field(ctx.form, 'push');
  const body = {
    required_approvals: approvals,
    required_status_checks: field(ctx.form, 'required_status_checks').split(',').map((s) => s.trim()).filter(Boolean),
    push: push === 'admin' || push === 'nobody' ? push : 'write',
    allow_force_pushes: options.includes('allow_force_pushes'),
    allow_deletions: options.includes('allow_deletions'),
    dismiss_stale_approvals: options.includes('dismiss_stale_approvals'),
  };
  return settingsChange(ctx, owner, name, 'branches', () => ctx.api.call('PUT', apiPath('/api/repos/{owner}/{repo}/branch-protections/{pattern}', { owner, repo: name, pattern }), body), 'protection-saved', again);
}

export function deleteProtection(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const pattern = field(ctx.form, 'pattern');
  return settingsChange(ctx, owner, name, 'branches', () => ctx.api.call('DELETE', apiPath('/api/repos/{owner}/{repo}/branch-protections/{pattern}', { owner, repo: name, pattern })).catch(userNotFound), 'protection-deleted', (o) => branchesPage(ctx, owner, name, o));
}
