import type { ComponentChildren } from 'preact';
import { AppError } from '@githost/errors';
import { apiPath } from '../../clients/api.js';
import type { Repository } from '../../clients/types.js';
import { attempt, ErrorNotice, Flash } from '../../views/forms.js';
import { repoPages } from '../paths.js';
import { chromeOf, loadCounts } from '../repo-data.js';
import { redirect, type PageContext, type PageResult, type RepoChrome } from '../registry.js';

export type Section = 'general' | 'collaborators' | 'branches' | 'keys' | 'webhooks';

/**
 * Repository settings are the owner's (and a site admin's), as the API's PATCH is: anyone else,
 * readers included, gets the same 404 page as for a repository that does not exist (GitHub).
 */
export async function ownedRepo(ctx: PageContext, owner: string, name: string): Promise<Repository> {
  const repo = await ctx.api.get(apiPath('/api/repos/{owner}/{repo}', { owner, repo: name }));
  if (!ctx.viewer || (ctx.viewer.username !== repo.owner && !ctx.viewer.is_admin)) throw new AppError('not_found', 'Not found');
  return repo;
}

const DONE: Record<string, string> = {
  saved: 'The settings have been saved.',
  'collaborator-added': 'The collaborator has been added.',
  'collaborator-removed': 'The collaborator has been removed.',
  'protection-saved': 'The protection rule has been saved.',
  'protection-deleted': 'The protection rule has been deleted.',
  'key-added': 'The deploy key has been added.',
  'key-deleted': 'The deploy key has been deleted.',
  'webhook-added': 'The webhook has been added.',
  'webhook-deleted': 'The webhook has been deleted.',
  pinged: 'A ping has been sent.',
  redelivered: 'The delivery has been queued again.',
};

export function SettingsFrame({ ctx, repo, section, error, children }: { ctx: PageContext; repo: Repository; section: Section; error?: string | undefined; children: ComponentChildren }) {
  const items: { id: Section; label: string }[] = [
    { id: 'general', label: 'General' },
    { id: 'collaborators', label: 'Collaborators' },
    { id: 'branches', label: 'Branch protection' },
    { id: 'keys', label: 'Deploy keys' },
    { id: 'webhooks', label: 'Webhooks' },
  ];
  return (
    <>
      <h1 class="page-title">Settings</h1>
      <nav aria-label="Repository settings" class="tabs">
        {items.map((i) => (
          <a href={repoPages.settings(repo.owner, repo.name, i.id === 'general' ? '' : i.id)} aria-current={i.id === section ? 'page' : undefined}>
            {i.label}
          </a>
        ))}
      </nav>
      <Flash ctx={ctx} messages={DONE} />
      <ErrorNotice error={error} />
      {children}
    </>
  );
}

/** A settings page's repository (the owner's, as `ownedRepo`) and its chrome, the tabs' counts
 *  asked beside it. */
export async function ownedRepoChrome(ctx: PageContext, owner: string, name: string): Promise<{ repo: Repository; chrome: RepoChrome }> {
  const [repo, counts] = await Promise.all([ownedRepo(ctx, owner, name), loadCounts(ctx.api, owner, name)]);
  return { repo, chrome: chromeOf(repo, 'settings', counts) };
}

export interface ViewOpts {
  error?: string;
  status?: number;
}

/** Runs a settings change: done, 303 back to the section with a notice; refused, the section
 *  again with the API's message. */
export async function settingsChange(ctx: PageContext, owner: string, name: string, section: string, run: () => Promise<unknown>, done: string, again: (o: ViewOpts) => Promise<PageResult>): Promise<PageResult> {
  await ownedRepo(ctx, owner, name);
  const result = await attempt(run, (message, status) => again({ error: message, status }));
  if (!result.ok) return result.result;
  return redirect(`${repoPages.settings(owner, name, section)}?done=${done}`);
}

/** A username that does not exist is the person's typo: said on the page, not a 404 page. */
export function userNotFound(err: unknown): never {
  if (err instanceof AppError && err.kind === 'not_found') throw new AppError('validation', err.message === 'Not found' ? 'No such user.' : err.message);
  throw err;
}
