import { apiPath } from '../../clients/api.js';
import { attempt, CsrfField, ErrorNotice } from '../../views/forms.js';
import { mrPages } from '../paths.js';
import { field, page, redirect, type PageContext, type PageResult } from '../registry.js';
import { chromeOf, loadCounts } from '../repo-data.js';
import { numberOf } from './common.js';

export async function editPage(ctx: PageContext, owner: string, name: string, raw: string, opts: { error?: string; status?: number; values?: { title: string; description: string } } = {}): Promise<PageResult> {
  const number = numberOf(raw);
  const [repo, mr, counts] = await Promise.all([
    ctx.api.get(apiPath('/api/repos/{owner}/{repo}', { owner, repo: name })),
    ctx.api.get(apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}', { owner, repo: name, number })),
    loadCounts(ctx.api, owner, name),
  ]);
  const values = opts.values ?? { title: mr.title, description: mr.description ?? '' };
  return page(
    `Edit #${number} · ${repo.full_name}`,
    <>
      <h1 class="page-title">Edit merge request #{number}</h1>
      <ErrorNotice error={opts.error} />
      <form method="post" action={mrPages.action(owner, name, number, 'edit')} class="stack">
        <CsrfField token={ctx.csrf} />
        <label for="edit-title">Title</label>
        <input id="edit-title" name="title" type="text" required maxLength={255} value={values.title} />
        <label for="edit-description">Description (Markdown)</label>
        <textarea id="edit-description" name="description" rows={10}>
          {values.description}
        </textarea>
        <button type="submit" class="primary">
          Save
        </button>
        <a href={mrPages.show(owner, name, number)}>Cancel</a>
      </form>
    </>,
    { repo: chromeOf(repo, 'merge-requests', counts), ...(opts.status ? { status: opts.status } : {}) },
  );
}

export async function saveEdit(ctx: PageContext, owner: string, name: string, raw: string): Promise<PageResult> {
  const number = numberOf(raw);
  const values = { title: field(ctx.form, 'title').trim(), description: field(ctx.form, 'description') };
  if (!values.title) return editPage(ctx, owner, name, raw, { error: 'The title cannot be empty.', status: 400, values });
  const result = await attempt(
    () => ctx.api.call('PATCH', apiPath('/api/repos/{owner}/{repo}/merge-requests/{number}', { owner, repo: name, number }), { title: values.title, description: values.description.trim() ? values.description : null }),
    (message, status) => editPage(ctx, owner, name, raw, { error: message, status, values }),
  );
  if (!result.ok) return result.result;
  return redirect(`${mrPages.show(owner, name, number)}?done=edited`);
}
