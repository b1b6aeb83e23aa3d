import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, httpStatusOf, kindOfHttpStatus, toAppError } from '@githost/errors';
import type { Logger } from '@githost/logging';

/** Gitea's error body (its `APIError`): the message and where its swagger document is. */
export interface GiteaErrorBody {
  message: string;
  url: string;
}

export function giteaErrorBody(message: string, publicUrl: string): GiteaErrorBody {
  return { message, url: `${publicUrl}/api/swagger` };
}

/** The status an error answers: the API's own (a 429 keeps its number) or the kind's, by the one table. */
export function statusOf(err: AppError): number {
  const status = err.details?.status;
  return typeof status === 'number' && status >= 400 && status < 600 && status !== 500 ? status : httpStatusOf(err.kind);
}

/** Everything thrown under /api/v1, in Gitea's shape; body-parser and router errors keep their 4xx. */
export function giteaErrors(publicUrl: string): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const library = err as { status?: unknown; type?: unknown } | undefined;
    const known = !(err instanceof AppError) && typeof library?.status === 'number' ? kindOfHttpStatus(library.status) : undefined;
    const appError = known ? new AppError(known, library?.type === 'entity.parse.failed' ? 'invalid JSON body' : 'invalid request') : toAppError(err);
    if (appError.kind === 'internal' || appError.kind === 'unavailable') {
      (req as { log?: Logger }).log?.error({ err: (appError.cause as Error | undefined) ?? appError }, 'request failed');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(statusOf(appError)).json(giteaErrorBody(appError.message, publicUrl));
  };
}

/** A path under /api/v1 that no feature serves: Gitea's 404 for an unknown route. */
export function giteaNotFound(publicUrl: string): RequestHandler {
  return (_req, res) => void res.status(404).json(giteaErrorBody('not found', publicUrl));
}
