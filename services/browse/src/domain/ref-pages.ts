import { validation } from '@githost/errors';

/** GitHub's default page size and its cap. */
export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;
/** Longest `q`, as the explore lists take it (openapi/openapi.yaml `q`). */
export const MAX_QUERY_LENGTH = 100;
/** Past this page number nothing could be listed (a million refs at 1 a page): refused as malformed. */
const MAX_PAGE = 1_000_000;

/** One page of a ref list, as asked: `q` is a part of the name, any letter case ('' = every ref). */
export interface RefPage {
  page: number;
  perPage: number;
  q: string;
}

/**
 * The opt-in paging of branches and tags (docs/decisions/ref-pages.md): undefined when the request
 * names none of `page`, `per_page`, `q`, so the seed's answer stays as it is. Unlike the
 * explore lists (GitHub's lenient reading), a value that is not what it must be is a 400: these
 * answers used to ignore every parameter, so a caller's typo must not look like paging.
 */
export function refPageOf(query: Record<string, unknown>): RefPage | undefined {
  if (query.page === undefined && query.per_page === undefined && query.q === undefined) return undefined;
  const once = (name: string): string | undefined => {
    const v = query[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw validation(`${name} must be given once`);
    return v;
  };
  const perPageRaw = once('per_page');
  const pageRaw = once('page');
  const q = once('q') ?? '';
  let perPage = DEFAULT_PER_PAGE;
  if (perPageRaw !== undefined) {
    if (!/^[1-9][0-9]{0,2}$/.test(perPageRaw) || Number(perPageRaw) > MAX_PER_PAGE) throw validation(`per_page must be an integer from 1 to ${MAX_PER_PAGE}`);
    perPage = Number(perPageRaw);
  }
  let page = 1;
  if (pageRaw !== undefined) {
    if (!/^[1-9][0-9]{0,6}$/.test(pageRaw) || Number(pageRaw) > MAX_PAGE) throw validation(`page must be an integer from 1 to ${MAX_PAGE}`);
    page = Number(pageRaw);
  }
  if (q.length > MAX_QUERY_LENGTH) throw validation(`q must be at most ${MAX_QUERY_LENGTH} characters`);
  return { page, perPage, q: q.trim() };
}

/** The records of the page whose names contain `q` (any letter case), and how many match in all. */
export function pageOfRefs<T>(sorted: readonly T[], at: RefPage, nameOf: (r: T) => string): { items: T[]; total: number } {
  const needle = at.q.toLowerCase();
  const matching = needle === '' ? sorted : sorted.filter((r) => nameOf(r).toLowerCase().includes(needle));
  const start = (at.page - 1) * at.perPage;
  return { items: matching.slice(start, start + at.perPage), total: matching.length };
}

/**
 * GitHub's Link header for a page: `prev` and `first` past page 1, `next` and `last` before the
 * last page; none when one page holds everything. Each target is the request's own path and
 * query with only `page` changed, relative to this host (RFC 8288 §3.2).
 */
export function refPageLinks(path: string, rawQuery: string, at: RefPage, total: number): string | undefined {
  const last = Math.max(1, Math.ceil(total / at.perPage));
  const url = (n: number) => {
    const params = new URLSearchParams(rawQuery);
    params.set('page', String(n));
    return `<${path}?${params.toString()}>`;
  };
  const links: string[] = [];
  if (at.page > 1) links.push(`${url(Math.min(at.page - 1, last))}; rel="prev"`);
  if (at.page < last) links.push(`${url(at.page + 1)}; rel="next"`, `${url(last)}; rel="last"`);
  if (at.page > 1) links.push(`${url(1)}; rel="first"`);
  return links.length > 0 ? links.join(', ') : undefined;
}
