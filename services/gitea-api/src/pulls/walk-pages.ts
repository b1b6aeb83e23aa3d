/**
 * githost's merge request lists page by cursor (docs/decisions/list-paging.md); Gitea's pull
 * request list pages by offset and counts the whole list (`X-Total-Count`). The face reads each
 * githost list whole, page after page along `rel="next"` at githost's largest page, then sorts and
 * cuts Gitea's page from it (docs/decisions/gitea-api.md#pull-requests).
 */

/** githost's largest cursor page: the fewest calls per list. */
export const GITHOST_PER_PAGE = 100;

/** The path and query of a `Link` header's `rel="next"` URL, or null on the last page. */
export function nextPathOf(link: string | undefined): string | null {
  if (!link) return null;
  for (const part of link.split(/,\s*(?=<)/)) {
    const m = /^\s*<([^>]*)>\s*;\s*rel="next"\s*$/.exec(part);
    if (!m) continue;
    const url = new URL(m[1]!, 'http://placeholder');
    return url.pathname + url.search;
  }
  return null;
}

export type PageReader<T> = (pathAndQuery: string) => Promise<{ items: T[]; link: string | undefined }>;

/**
 * Every row of a cursor-paged list from `first` on: one call per page. A `next` on another path,
 * or the page just read again, ends the walk: the face follows only the list it asked for.
 */
export async function readAllPages<T>(read: PageReader<T>, first: string): Promise<T[]> {
  const pathOf = (p: string) => new URL(p, 'http://placeholder').pathname;
  const rows: T[] = [];
  const seen = new Set<string>();
  let at: string | null = first;
  while (at !== null && !seen.has(at)) {
    seen.add(at);
    const { items, link } = await read(at);
    rows.push(...items);
    const next = nextPathOf(link);
    at = next !== null && pathOf(next) === pathOf(first) ? next : null;
  }
  return rows;
}
