/**
 * githost's merge request lists page by cursor (docs/decisions/list-paging.md); Gitea's pull
 * request list pages by offset and counts the whole list (`X-Total-Count`). The face walks
 * githost's pages along `rel="next"`: as far as Gitea's page reaches when the orders agree, to
 * the end when they do not (docs/decisions/gitea-api.md#pull-requests).
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

export type PageReader<T> = (pathAndQuery: string) => Promise<{ items: T[]; link: string | undefined; total?: number | undefined }>;

/** The rows read, and the whole list's length when the list said it (`X-Total-Count`) or when the walk reached its end. */
export interface ListHead<T> {
  rows: T[];
  total: number | undefined;
}

/**
 * The first `wanted` rows of a cursor-paged list from `first` on (all of them when `wanted` is
 * Infinity): one call per page. A `next` on another path, or the page just read again, ends the
 * walk: the face follows only the list it asked for.
 */
export async function readPages<T>(read: PageReader<T>, first: string, wanted = Infinity): Promise<ListHead<T>> {
  const pathOf = (p: string) => new URL(p, 'http://placeholder').pathname;
  const rows: T[] = [];
  const seen = new Set<string>();
  let total: number | undefined;
  let at: string | null = first;
  while (at !== null && !seen.has(at) && rows.length < wanted) {
    seen.add(at);
    const page = await read(at);
    rows.push(...page.items);
    total ??= page.total;
    const next = nextPathOf(page.link);
    at = next !== null && pathOf(next) === pathOf(first) ? next : null;
  }
  return { rows, total: at === null ? rows.length : total };
}

/** Every row of a cursor-paged list from `first` on. */
export async function readAllPages<T>(read: PageReader<T>, first: string): Promise<T[]> {
  return (await readPages(read, first)).rows;
}
