import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RequestHandler } from 'express';
import { parse } from 'yaml';
import type { Logger } from '@githost/logging';

export const OPENAPI_PATH = '/api/openapi.json';

/** Where the document is: the repository's `openapi/openapi.yaml` (the source, next to the
 *  gateway package in a checkout, so a run from src or dist always serves the current text),
 *  else the copy the gateway build puts beside dist (an image that ships only `gateway/`). */
const CANDIDATES = [new URL('../../openapi/openapi.yaml', import.meta.url), new URL('./openapi.yaml', import.meta.url)];

export function findOpenApiDocument(): string | undefined {
  return CANDIDATES.map((u) => fileURLToPath(u)).find((file) => existsSync(file));
}

/** The OpenAPI document as JSON, parsed once at start (docs/operating.md#api-description-openapi); no authentication. */
export function openApiHandler(logger: Logger, file = findOpenApiDocument()): RequestHandler {
  if (!file) {
    logger.warn({ candidates: CANDIDATES.map((u) => fileURLToPath(u)) }, 'openapi.yaml not found: GET /api/openapi.json answers 404');
    return (_req, _res, next) => next();
  }
  const body = Buffer.from(JSON.stringify(parse(readFileSync(file, 'utf8'))));
  return (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/json').send(body);
  };
}
