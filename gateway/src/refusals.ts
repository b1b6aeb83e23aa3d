import type { ErrorRequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpStatusOf, toAppError, type AppError } from '@githost/errors';
import type { Logger } from '@githost/logging';
import { REQUEST_ID_HEADER } from '@githost/logging';

/** git-lfs docs/api/batch.md: every request and answer of the LFS API carries this media type. */
export const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';

/** The LFS API's paths (git-lfs docs/api), under the git transport path. */
const LFS_PATH = /^\/[^/?]+\/[^/?]+\.git\/info\/lfs(?:[/?]|$)/;

export function isLfsPath(url: string | undefined): boolean {
  return LFS_PATH.test(url ?? '');
}

/**
 * The one place the gateway writes a refusal of its own (401, 403, 404, 413, 429, 503): the
 * `{"error": ...}` body of CONTRACT §4, except on the LFS API, whose client reads
 * `{"message": ...}` in git-lfs's media type (batch.md "Response Errors"), as git-storage's own
 * LFS answers are (docs/decisions/lfs.md). A 401 there carries `LFS-Authenticate` beside
 * `WWW-Authenticate`: git-lfs takes the scheme from either.
 */
export function sendRefusal(req: IncomingMessage, res: ServerResponse, error: Pick<AppError, 'message' | 'details'>, status: number): void {
  res.statusCode = status;
  if (!isLfsPath(req.url)) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(JSON.stringify({ ...(error.details ?? {}), error: error.message }));
    return;
  }
  const challenge = res.getHeader('WWW-Authenticate');
  if (status === 401 && challenge !== undefined) res.setHeader('LFS-Authenticate', challenge);
  const requestId = req.headers[REQUEST_ID_HEADER];
  res.setHeader('Content-Type', LFS_MEDIA_TYPE);
  res.end(JSON.stringify({ ...(error.details ?? {}), message: error.message, ...(typeof requestId === 'string' ? { request_id: requestId } : {}) }));
}

/**
 * Errors on the LFS API's paths, in git-lfs's shape, logged as the shared handler logs them;
 * every other path goes on to that handler (`finish` of @githost/http).
 */
export const lfsRefusals: ErrorRequestHandler = (err: unknown, req, res, next) => {
  if (!isLfsPath(req.originalUrl) || res.headersSent) return next(err);
  const error = toAppError(err);
  if (error.kind === 'internal' || error.kind === 'unavailable') (req as { log?: Logger }).log?.error({ err: (error.cause as Error | undefined) ?? error }, 'request failed');
  sendRefusal(req, res, error, httpStatusOf(error.kind));
};
