import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { type AppError, headersTooLarge, uriTooLong, validation } from '@githost/errors';
import { pathParameterNamer } from './path-parameters.js';

/** Longest request target (path and query) the gateway reads; past it, 414. */
export const MAX_URL_BYTES = 16 * 1024;
/** Most header field bytes (names and values) a request may carry; past it, 431. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** Most header fields a request may carry (Apache's LimitRequestFields default); past it, 431.
 *  Many tiny fields cost the parser and every reader as much as a few large ones. */
export const MAX_HEADER_FIELDS = 100;

// seed §5 and CONTRACT §9: deleting a webhook answers 204 whatever its id looks like.
const WEBHOOK_DELETE = /^\/api\/repos\/[^/]+\/[^/]+\/webhooks\/[^/]+$/;
/** The index in `path` of the first segment whose percent-encoding does not decode (as UTF-8), or -1. */
export function malformedEscapeAt(path: string): number {
  for (const segment of segmentsOf(path)) {
    try {
      decodeURIComponent(segment.text);
    } catch {
      return segment.start;
    }
  }
  return -1;
}

function segmentsOf(path: string): { text: string; start: number }[] {
  const out: { text: string; start: number }[] = [];
  let start = 0;
  for (const text of path.split('/')) {
    out.push({ text, start });
    start += text.length + 1;
  }
  return out;
}

/** The index in `path` of the segment whose decoded text holds a NUL, or -1. */
function nulAt(path: string): number {
  for (const segment of segmentsOf(path)) {
    if (!segment.text.includes('%')) continue;
    try {
      if (decodeURIComponent(segment.text).includes('\0')) return segment.start;
    } catch {
      // reported as malformed already
    }
  }
  return -1;
}

/** The name of the first query parameter whose name or value decodes to something with a NUL. */
function queryParameterWithNul(query: string): string | undefined {
  for (const [name, value] of new URLSearchParams(query)) {
    if (name.includes('\0') || value.includes('\0')) return name.replace(/\0/g, '\\0');
  }
  return undefined;
}

function headerBytes(req: IncomingMessage): number {
  let total = 0;
  for (const field of req.rawHeaders) total += Buffer.byteLength(field) + 2;
  return total;
}

/** What is wrong with a request's target or header fields, or undefined when nothing is. */
export type TargetCheck = (req: IncomingMessage) => AppError | undefined;

/**
 * Finds a request whose target or header fields cannot be what any route means, before anything
 * is looked up or forwarded: an over-long URL (414) or header block (431), a path escape that
 * does not decode (400), a NUL in a path or query parameter (400, naming it; no stored string of
 * ours may hold one and Postgres text cannot).
 */
export function createTargetCheck(openApiFile: string | undefined): TargetCheck {
  const parameterAt = pathParameterNamer(openApiFile);
  return (req) => {
    const url = req.url ?? '';
    if (Buffer.byteLength(url) > MAX_URL_BYTES) return uriTooLong();
    // Every field is counted: node keeps them all (answerOversizedRequests).
    if (req.rawHeaders.length / 2 > MAX_HEADER_FIELDS) return headersTooLarge(`Too many header fields (at most ${MAX_HEADER_FIELDS})`);
    if (headerBytes(req) > MAX_HEADER_BYTES) return headersTooLarge();
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    // Neither check can find anything without an escape.
    if (path.includes('%') && !(req.method === 'DELETE' && WEBHOOK_DELETE.test(path))) {
      const malformed = malformedEscapeAt(path);
      if (malformed >= 0) return validation(`Malformed percent-encoding in the path (${parameterAt(path, malformed)})`);
      const nul = nulAt(path);
      if (nul >= 0) return validation(`Path parameter "${parameterAt(path, nul)}" must not contain NUL characters`);
    }
    // A NUL can only arrive escaped: node's parser refuses a raw one.
    const query = q < 0 || !url.includes('%', q) ? undefined : queryParameterWithNul(url.slice(q + 1));
    if (query !== undefined) return validation(`Query parameter "${query}" must not contain NUL characters`);
    return undefined;
  };
}

/** Refuses what `check` finds before anything else reads the request. */
export function refuseMalformedTarget(check: TargetCheck) {
  return (req: Request, _res: Response, next: NextFunction): void => next(check(req));
}
