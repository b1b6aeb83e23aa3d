import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { ifNoneMatchHits } from '@githost/http';
import type { GatewayClient } from '../gateway-client.js';

/**
 * The validators of a face answer made only of browse answers, as browse sets its own
 * (services/browse/src/http/routes.ts): a strong ETag of the bytes, and `no-cache` (`private` for
 * a private repository), never `immutable`. Set only when the gateway admitted the read for a
 * caller who may read the repository (so the visibility is known) and every answer the face read
 * had a validator: then the answer depends only on the repository's refs, its default branch,
 * its visibility and the URL, the key the gateway's edge keeps it under
 * (docs/decisions/gitea-api.md#warm-reads-at-the-edge). Undefined: send no validators.
 */
export function validatorsOf(gateway: Pick<GatewayClient, 'admittedRepo' | 'validated'>, body: Buffer, keptBy: KeptBy = 'refs'): { etag: string; cacheControl: string } | undefined {
  const repo = gateway.admittedRepo;
  if (!repo || (keptBy === 'refs' && !gateway.validated)) return undefined;
  return { etag: `"${createHash('sha1').update(body).digest('base64url')}"`, cacheControl: repo.private ? 'private, no-cache' : 'no-cache' };
}

/**
 * What the gateway keeps a face answer by. `refs`: the answer is made of browse answers alone,
 * each with its validator. `facts`: the answer is the pull request list, made of merge requests,
 * the repository's settings and branch tips, which the gateway keeps by the refs and facts
 * versions and the caller's permission (docs/decisions/pulls-at-the-edge.md); only its route
 * (gateway/src/admission/routes.ts `edgeFacts`) may say so.
 */
export type KeptBy = 'refs' | 'facts';

/** Sends a read's 200 answer with its validators when it may carry them (304 when the client holds them). */
export function sendRead(req: Request, res: Response, gateway: GatewayClient, body: Buffer, contentType: string, keptBy: KeptBy = 'refs'): void {
  const validators = validatorsOf(gateway, body, keptBy);
  if (validators) {
    res.setHeader('ETag', validators.etag);
    res.setHeader('Cache-Control', validators.cacheControl);
    if (ifNoneMatchHits(req.headers['if-none-match'], validators.etag)) {
      res.status(304).end();
      return;
    }
  }
  res.status(200);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', body.length);
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

/** `sendRead` of a JSON answer, written as express's `res.json` writes it. */
export function sendJsonRead(req: Request, res: Response, gateway: GatewayClient, value: unknown): void {
  sendRead(req, res, gateway, Buffer.from(JSON.stringify(value)), 'application/json; charset=utf-8');
}
