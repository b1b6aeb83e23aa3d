import type { Request, Response } from 'express';
import { lastPageOf, type Page } from '../domain/paging.js';

/**
 * GitHub's pagination header: `rel="prev"` and `rel="first"` past page 1, `rel="next"` and
 * `rel="last"` before the last page; none when everything fits on one page. Each URL is the
 * request's own under PUBLIC_URL, with only `page` changed.
 */
export function linkHeader(publicUrl: string, path: string, rawQuery: string, page: Page, total: number): string | undefined {
  const last = lastPageOf(page, total);
  const url = (n: number) => {
    const params = new URLSearchParams(rawQuery);
    params.set('page', String(n));
    return `<${publicUrl}${path}?${params.toString()}>`;
  };
  const links: string[] = [];
  if (page.page > 1) links.push(`${url(page.page - 1)}; rel="prev"`);
  if (page.page < last) links.push(`${url(page.page + 1)}; rel="next"`, `${url(last)}; rel="last"`);
  if (page.page > 1) links.push(`${url(1)}; rel="first"`);
  return links.length > 0 ? links.join(', ') : undefined;
}

/** Sends one page of a list with its Link header and, as GitLab and Gitea do, `X-Total-Count`
 *  (the Gitea-compatible API pages by it: docs/decisions/gitea-api.md#what-was-added-to-githosts-api). */
export function sendPage<T>(req: Request, res: Response, publicUrl: string, page: Page, result: { items: T[]; total: number }, json: (item: T) => unknown): void {
  const q = req.originalUrl.indexOf('?');
  const link = linkHeader(publicUrl, req.path, q < 0 ? '' : req.originalUrl.slice(q + 1), page, result.total);
  if (link) res.setHeader('Link', link);
  res.setHeader('X-Total-Count', String(result.total));
  res.json(result.items.map(json));
}
