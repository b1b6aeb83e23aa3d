import { apiPath } from '../../clients/api.js';
import { Time } from '../../views/components.js';
import { mrPages } from '../paths.js';
import { page, type PageContext, type PageResult } from '../registry.js';
import { chromeOf, loadCounts } from '../repo-data.js';
import { StateBadge } from './common.js';

const STATES = [
  { id: 'open', label: 'Open' },
  { id: 'closed', label: 'Closed' },
  { id: 'merged', label: 'Merged' },
] as const;

export async function listPage(ctx: PageContext, owner: string, name: string): Promise<PageResult> {
  const state = STATES.find((s) => s.id === ctx.req.query.state)?.id ?? 'open';
  // The open list is asked by the counts' own path, so the open tab asks for it once.
  const [repo, list, counts] = await Promise.all([
    ctx.api.get(apiPath('/api/repos/{owner}/{repo}', { owner, repo: name })),
    ctx.api.get(apiPath('/api/repos/{owner}/{repo}/merge-requests', { owner, repo: name }, `?state=${state}`)),
    loadCounts(ctx.api, owner, name),
  ]);
  return page(
    `Merge requests · ${repo.full_name}`,
    <>
      <div class="repo-top">
        <h1 class="page-title">Merge requests</h1>
        <p class="repo-actions">
          <a class="button primary" href={mrPages.compare(owner, name)}>
            New merge request
          </a>
        </p>
      </div>
      <nav aria-label="Merge request state" class="tabs">
        {STATES.map((s) => (
          <a href={mrPages.list(owner, name, s.id)} aria-current={s.id === state ? 'page' : undefined}>
            {s.label}
          </a>
        ))}
      </nav>
      {list.length === 0 ? (
        <p>There are no {state} merge requests.</p>
      ) : (
        <ul class="item-list mr-list">
          {list.map((mr) => (
            <li>
              <div>
                <a href={mrPages.show(owner, name, mr.number)} class="subject">
                  {mr.title}
                </a>
                <p class="muted">
                  #{mr.number} · {mr.author_username ?? 'unknown'} · {mr.source_branch} → {mr.target_branch} · opened <Time iso={mr.created_at} />
                </p>
              </div>
              <StateBadge state={mr.state} />
            </li>
          ))}
        </ul>
      )}
    </>,
    { repo: chromeOf(repo, 'merge-requests', counts) },
  );
}
