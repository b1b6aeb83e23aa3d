import type { Request, Response } from 'express';

/** Gitea's defaults (its app.ini `[api]`), answered by `GET /settings/api` too. */
export const API_SETTINGS = {
  max_response_items: 50,
  default_paging_num: 30,
  default_git_trees_per_page: 1000,
  default_max_blob_size: 10_485_760,
  default_max_response_size: 52_428_800,
} as const;

export interface Paging {
  page: number;
  limit: number;
}

const intOf = (value: unknown): number => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : 0);

/**
 * `page` and `limit` as Gitea reads them (`utils.GetListOptions`): a page below 1 is the first,
 * a limit below 1 the default (30), a limit above `max_response_items` (50) lowered to it;
 * anything that is not an integer counts as absent. `per_page` is Gitea's older name for `limit`.
 */
export function pagingOf(req: Request, defaultLimit: number = API_SETTINGS.default_paging_num, maxLimit: number = API_SETTINGS.max_response_items): Paging {
  const query = req.query as Record<string, unknown>;
  const page = Math.max(1, intOf(query.page));
  const asked = intOf(query.limit) || intOf(query.per_page);
  const limit = asked <= 0 ? defaultLimit : Math.min(asked, maxLimit);
  return { page, limit };
}

/** One page of a whole list. */
export function pageOf<T>(items: readonly T[], { page, limit }: Paging): T[] {
  return items.slice((page - 1) * limit, page * limit);
}

/**
 * Gitea's paging headers: `X-Total-Count`, and `Link` with `next`, `last`, `first`, `prev` in
 * Gitea's order, each the request's own URL on the public address with `page` replaced.
 */
export function setPagingHeaders(req: Request, res: Response, total: number, { page, limit }: Paging, publicUrl: string): void {
  res.setHeader('X-Total-Count', String(total));
  const pages = Math.max(1, Math.ceil(total / limit));
  // Gitea's paginator reads a page past the end as the last one (its prev and first follow from that).
  const current = Math.min(page, pages);
  setLinkHeader(req, res, publicUrl, current, current < pages ? { next: true, last: pages } : { next: false, last: pages });
}

/**
 * The commit list's headers, as Gitea's `GetAllCommits` sends them on every page: those of every
 * list, and `X-Page`, `X-PerPage`, `X-Total`, `X-PageCount`, `X-HasMore` (kept by Gitea "for
 * backwards compatibility"; `X-Page` is the page asked for, `X-PageCount` 0 for an empty log).
 */
export function setCommitPagingHeaders(req: Request, res: Response, total: number, paging: Paging, publicUrl: string): void {
  setPagingHeaders(req, res, total, paging, publicUrl);
  const pageCount = Math.ceil(total / paging.limit);
  res.setHeader('X-Page', String(paging.page));
  res.setHeader('X-PerPage', String(paging.limit));
  res.setHeader('X-Total', String(total));
  res.setHeader('X-PageCount', String(pageCount));
  res.setHeader('X-HasMore', String(paging.page < pageCount));
}

/**
 * Gitea's paging headers for a log whose length githost did not send (a browse older than
 * CountCommits, during an upgrade: docs/decisions/gitea-api.md#commits): `X-HasMore`, `Link` with
 * `next` while more remain and `first`, `prev` past page 1, and `X-Total-Count` and `last` only
 * on the page that holds the end, where they are exact.
 */
export function setLogPagingHeaders(req: Request, res: Response, count: number, more: boolean, paging: Paging, publicUrl: string): void {
  res.setHeader('X-HasMore', String(more));
  // A page past the end (empty, not the first) knows only that the log is shorter.
  if (more || (count === 0 && paging.page > 1)) setLinkHeader(req, res, publicUrl, paging.page, { next: more });
  else setPagingHeaders(req, res, (paging.page - 1) * paging.limit + count, paging, publicUrl);
}

/** `Link` in Gitea's order, each the request's own URL on the public address with `page` replaced. */
function setLinkHeader(req: Request, res: Response, publicUrl: string, page: number, { next, last }: { next: boolean; last?: number }): void {
  const at = (n: number) => {
    const url = new URL(req.originalUrl, 'http://placeholder');
    url.searchParams.set('page', String(n));
    return `${publicUrl}${url.pathname}${url.search}`;
  };
  const links: string[] = [];
  if (next) links.push(`<${at(page + 1)}>; rel="next"`);
  if (next && last !== undefined) links.push(`<${at(last)}>; rel="last"`);
  if (page > 1) links.push(`<${at(1)}>; rel="first"`);
  if (page > 1) links.push(`<${at(last === undefined ? page - 1 : Math.min(page - 1, last))}>; rel="prev"`);
  if (links.length > 0) res.setHeader('Link', links.join(','));
}

/** Sends one page of a whole list with Gitea's paging headers. */
export function sendPage<T>(req: Request, res: Response, items: readonly T[], paging: Paging, publicUrl: string): void {
  setPagingHeaders(req, res, items.length, paging, publicUrl);
  res.json(pageOf(items, paging));
}
