import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

/** Internal headers (the signed identity and anything else `x-githost-*`) come only from the
 *  gateway; a client's copy is dropped before anything reads the request (CONTRACT §3). */
export function stripInternalHeaders(req: Request, _res: Response, next: NextFunction): void {
  dropInternalHeaders(req.headers);
  next();
}

/** The same, for a read forwarded before the router (edge-cache/before-router.ts). */
export function dropInternalHeaders(headers: IncomingHttpHeaders): void {
  for (const name of Object.keys(headers)) {
    if (name.startsWith('x-githost-')) delete headers[name];
  }
}
