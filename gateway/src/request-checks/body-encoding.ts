import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { parse as parseContentType } from 'content-type';
import { unsupportedMediaType } from '@githost/errors';

const GIT_TRANSPORT = /^\/[^/]+\/[^/]+\.git\//;
/** What the services decode: the API's JSON parser gunzips and inflates, git-storage gunzips. */
const API_ENCODINGS = new Set(['identity', 'gzip', 'deflate']);
const GIT_ENCODINGS = new Set(['identity', 'gzip', 'x-gzip']);

/** The request declares a body (chunked, or a non-zero Content-Length). */
export function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
}

/**
 * Refuses a request body no service can decode (415) before it is forwarded: a content coding
 * other than the ones above (`br`, `zstd`, a chain of codings), a JSON body in a charset other
 * than UTF-8 (RFC 8259 §8.1).
 */
export function refuseUndecodableBody(req: Request, _res: Response, next: NextFunction): void {
  if (!hasBody(req)) return next();
  const git = GIT_TRANSPORT.test(req.path);
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (!(git ? GIT_ENCODINGS : API_ENCODINGS).has(encoding)) return next(unsupportedMediaType(`Unsupported Content-Encoding: ${encoding}`));
  const header = req.headers['content-type'];
  if (git || header === undefined) return next();
  const parsed = parseContentType(header);
  const charset = parsed.parameters.charset?.toLowerCase();
  const json = parsed.type === 'application/json' || parsed.type.endsWith('+json');
  if (json && charset !== undefined && charset !== 'utf-8') return next(unsupportedMediaType(`Unsupported charset "${charset.toUpperCase()}"`));
  next();
}
