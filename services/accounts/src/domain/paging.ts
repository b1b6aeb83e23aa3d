import { validation } from '@githost/errors';

/** docs/decisions/repositories.md: lists are paged as GitHub pages them. */
export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;

export interface Page {
  /** 1-based. */
  page: number;
  per_page: number;
}

export interface Paged<T> {
  items: T[];
  /** Items on every page together. */
  total: number;
}

function positiveInteger(value: unknown): number | undefined {
  // Up to nine digits: beyond that no list has a page, and the offset stays exact.
  if (typeof value !== 'string' || !/^[0-9]{1,9}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 ? n : undefined;
}

/**
 * `page` and `per_page` as GitHub reads them: a missing or malformed value is the default
 * (page 1, 30 per page) and `per_page` above 100 is 100, never an error.
 */
export function parsePage(query: Record<string, unknown>): Page {
  return {
    page: positiveInteger(query.page) ?? 1,
    per_page: Math.min(positiveInteger(query.per_page) ?? DEFAULT_PER_PAGE, MAX_PER_PAGE),
  };
}

export const offsetOf = (p: Page): number => (p.page - 1) * p.per_page;

/** The last page's number; 1 for an empty list. */
export const lastPageOf = (p: Page, total: number): number => Math.max(1, Math.ceil(total / p.per_page));

/** The longest name filter (`q`) a list takes: no user or repository name is longer. */
export const MAX_NAME_FILTER = 100;

/**
 * `q`, the name filter of the explore lists (docs/decisions/explore-lists.md): absent or blank is
 * no filter; otherwise a case-insensitive part of the name, at most 100 characters.
 */
export function parseNameFilter(query: Record<string, unknown>): string | undefined {
  const raw = query.q;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw validation('q must be given once');
  const q = raw.trim();
  if (q.length > MAX_NAME_FILTER) throw validation(`q must be at most ${MAX_NAME_FILTER} characters`);
  return q === '' ? undefined : q;
}

/** The largest integer id Gitea's JSON carries (packages/gitea-ids: 48 bits, plus one). */
const MAX_GITEA_ID = 2 ** 48;

/**
 * `gitea_id`, the explore list's filter by the integer id Gitea's JSON gives a repository
 * (docs/decisions/gitea-api.md#integer-ids), beside the spec's parameters: absent is no filter;
 * otherwise a positive integer of at most 48 bits, given once.
 */
export function parseGiteaIdFilter(query: Record<string, unknown>): number | undefined {
  const raw = query.gitea_id;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[0-9]{1,15}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_GITEA_ID) throw validation('gitea_id must be a positive integer, given once');
  return Number(raw);
}
