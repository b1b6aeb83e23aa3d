import type { NextFunction, Request, Response } from 'express';

/** Internal headers (the signed identity and anything else `x-githost-*`) come only from the
 *  gateway; a client's copy is dropped before anything reads the request (CONTRACT §3). */
export function stripInternalHeaders(req: Request, _res: Response, next: NextFunction): void {
  for (const name of Object.keys(req.headers)) {
    if (name.startsWith('x-githost-')) delete req.headers[name];
  }
  next();
}
