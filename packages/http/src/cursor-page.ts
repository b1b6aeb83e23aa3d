import type { Request, Response } from 'express';
import { validation } from '@githost/errors';

/**
 * Opt-in cursor paging of a newest-first list (docs/decisions/list-paging.md): `per_page` (1-100)
 * and `cursor` (opaque, from a `Link` header), answered with GitHub's `Link` header. Without
 * either parameter a list answers exactly as before. The shapes match @githost/db's keyset pages
 * (the database side), which this package does not depend on.
 */

export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;

interface Key {
  at: string;
  tie: string;
}

export type CursorStart = { kind: 'newest' } | { kind: 'oldest' } | { kind: 'older'; key: Key } | { kind: 'newer'; key: Key };

export interface CursorPageRequest {
  perPage: number;
  start: CursorStart;
}

/** What the page that was read says about its neighbours. */
export interface CursorPageAnswer {
  first: Key | null;
  last: Key | null;
  hasNewer: boolean;
  hasOlder: boolean;
}

const PER_PAGE_MESSAGE = `per_page must be an integer from 1 to ${MAX_PER_PAGE}`;
const INT64_MAX = 9223372036854775807n;

function single(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw validation(`${name} must be given once`);
  return v;
}

/**
 * The page a request asks for, or null when it asks for none (no `per_page`, no `cursor`): the
 * list then answers as the spec says. `page` is refused beside them: offsets are what this paging
 * avoids, and silently ignoring it would hand a page-counting client page 1 forever.
 */
export function parseCursorPage(query: Record<string, unknown>): CursorPageRequest | null {
  const rawPerPage = single(query, 'per_page');
  const rawCursor = single(query, 'cursor');
  if (rawPerPage === undefined && rawCursor === undefined) return null;
  if (query.page !== undefined) throw validation('page is not supported: follow the Link header (cursor)');
  let perPage = DEFAULT_PER_PAGE;
  if (rawPerPage !== undefined) {
    if (!/^[0-9]{1,3}$/.test(rawPerPage)) throw validation(PER_PAGE_MESSAGE);
    perPage = Number(rawPerPage);
    if (perPage < 1 || perPage > MAX_PER_PAGE) throw validation(PER_PAGE_MESSAGE);
  }
  return { perPage, start: rawCursor === undefined ? { kind: 'newest' } : decodeCursor(rawCursor) };
}

export function encodeCursor(start: CursorStart): string {
  const text = start.kind === 'newest' ? 'f' : start.kind === 'oldest' ? 'l' : `${start.kind === 'older' ? 'o' : 'n'}.${start.key.at}.${start.key.tie}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

export function decodeCursor(raw: string): CursorStart {
  const bad = () => validation('cursor is not valid: use the one a Link header gave');
  if (raw.length > 100 || !/^[A-Za-z0-9_-]+$/.test(raw)) throw bad();
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  if (text === 'f') return { kind: 'newest' };
  if (text === 'l') return { kind: 'oldest' };
  const m = /^([on])\.(-?[0-9]{1,19})\.([0-9]{1,19})$/.exec(text);
  if (!m) throw bad();
  const [at, tie] = [BigInt(m[2]!), BigInt(m[3]!)];
  if (at > INT64_MAX || at < -INT64_MAX || tie > INT64_MAX) throw bad();
  return { kind: m[1] === 'o' ? 'older' : 'newer', key: { at: at.toString(), tie: tie.toString() } };
}

/**
 * GitHub's `Link` header for a page: `next` and `last` while older rows remain, `prev` and
 * `first` while newer ones do; none when the page is the whole list. Each URL is the request's
 * own under `publicUrl`, with `per_page` made explicit and `cursor` replaced.
 */
export function cursorLinks(publicUrl: string, path: string, rawQuery: string, page: CursorPageRequest, answer: CursorPageAnswer): string | undefined {
  const url = (start: CursorStart | null) => {
    const params = new URLSearchParams(rawQuery);
    params.set('per_page', String(page.perPage));
    if (start) params.set('cursor', encodeCursor(start));
    else params.delete('cursor');
    return `<${publicUrl}${path}?${params.toString()}>`;
  };
  const links: string[] = [];
  if (answer.hasNewer && answer.first) links.push(`${url({ kind: 'newer', key: answer.first })}; rel="prev"`);
  else if (answer.hasNewer) links.push(`${url(null)}; rel="prev"`);
  if (answer.hasOlder && answer.last) links.push(`${url({ kind: 'older', key: answer.last })}; rel="next"`, `${url({ kind: 'oldest' })}; rel="last"`);
  if (answer.hasNewer) links.push(`${url(null)}; rel="first"`);
  return links.length > 0 ? links.join(', ') : undefined;
}

/** Sends one page with its Link header. */
export function sendCursorPage(req: Request, res: Response, publicUrl: string, page: CursorPageRequest, answer: CursorPageAnswer, body: unknown): void {
  const q = req.originalUrl.indexOf('?');
  const link = cursorLinks(publicUrl, req.path, q < 0 ? '' : req.originalUrl.slice(q + 1), page, answer);
  if (link) res.setHeader('Link', link);
  res.json(body);
}
