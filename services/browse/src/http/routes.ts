import { notFound } from '@githost/errors';
import { identityOf, type NextFunction, type Request, type Response } from '@githost/http';
import { canRead } from '@githost/identity';
import { compareRefs, getBlob, getCommit, getRaw, getTree, listBranches, listCommits, listTags, parseLogNot, parseLogPage, parseLogPath, type BrowseDeps, type JsonBody, type ListBody, type Prepared, type RepoRef, type TreeBody } from '../domain/browse.js';
import { ifNoneMatchHits } from '@githost/http';
import { parseCommitStats, withCommitChanges } from '../domain/commit-changes.js';
import { etagOf } from '../domain/etag.js';
import { drained } from './drained.js';
import type { RawBlob } from '../domain/raw.js';
import { refPageOf } from '../domain/ref-pages.js';
import type { StreamedJson } from '../domain/ref-lists.js';

/**
 * The path is matched on the raw (still percent-encoded) URL: CONTRACT §9 decodes ref_and_path
 * exactly once, which the domain does, and express's own parameter decoding would turn a bad
 * escape into a 500.
 */
const ROUTE = /^\/api\/repos\/[^/]+\/[^/]+\/(?:(tree|blob|raw|commits|compare)(?:\/(.*))?|commit\/(.+)|(branches|tags)\/?)$/;

/** The browse endpoints: GET (and HEAD) under /api/repos/{owner}/{repo}/. */
export function browseRoutes(browse: BrowseDeps): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const m = req.method === 'GET' || req.method === 'HEAD' ? ROUTE.exec(req.originalUrl.split('?', 1)[0] as string) : null;
    if (!m) return next();
    // the metrics route label: the endpoint's pattern, never the ref or path asked for
    res.locals.routeLabel = `/api/repos/:owner/:repo/${m[1] ?? m[4] ?? 'commit'}`;
    handle(browse, m, req, res).catch(next);
  };
}

async function handle(browse: BrowseDeps, m: RegExpExecArray, req: Request, res: Response): Promise<void> {
  const [, refEndpoint, refAndPath = '', sha, listEndpoint] = m;
  const repo = readableRepo(req, res);
  if (refEndpoint === 'raw') return sendRaw(req, res, await getRaw(browse, repo, refAndPath));
  if (refEndpoint === 'tree') return sendMaybeStreamed(req, res, await getTree(browse, repo, refAndPath, req.query.limit));
  let prepared: Prepared;
  // docs/decisions/gitea-api.md#stats-and-files: each commit's stats and files, when asked for.
  const stats = refEndpoint === 'commits' || refEndpoint === 'compare' || sha !== undefined ? parseCommitStats(req.query.stats) : false;
  if (refEndpoint === 'blob') prepared = await getBlob(browse, repo, refAndPath);
  else if (refEndpoint === 'compare') prepared = await compareRefs(browse, repo, refAndPath);
  else if (refEndpoint === 'commits') {
    const page = parseLogPage(req.query.page);
    const filePath = parseLogPath(req.query.path);
    const not = parseLogNot(req.query.not);
    const [path, rawQuery = ''] = splitUrl(req.originalUrl);
    // A path or `not` asks for the paged log (its first page without `page`); without any the spec's answer stands.
    const paged = page !== undefined || filePath !== '' || not !== '';
    prepared = await listCommits(browse, repo, refAndPath, req.query.limit, paged ? { page: page ?? 1, path, rawQuery, filePath, not } : undefined);
  }
  else if (sha !== undefined) prepared = await getCommit(browse, repo, sha);
  else return sendList(req, res, browse, repo, listEndpoint);
  // One commit's record, or the log's and the compare's `commits`.
  if (stats) prepared = withCommitChanges(browse.reader, browse.cache, repo, prepared, (body) => (sha !== undefined ? [body] : (body.commits as Array<Record<string, unknown>>)));
  if (notModified(req, res, prepared)) return;
  const body = await prepared.body();
  setValidators(res, prepared);
  for (const [name, value] of Object.entries(prepared.headers ?? {})) res.setHeader(name, value);
  sendJson(req, res, body);
}

/** Branches and tags: the whole list may stream (docs/decisions/ref-pages.md#the-whole-list-streamed). */
async function sendList(req: Request, res: Response, browse: BrowseDeps, repo: RepoRef, endpoint: string | undefined): Promise<void> {
  const [path, rawQuery = ''] = splitUrl(req.originalUrl);
  const list = { path, rawQuery, page: refPageOf(req.query as Record<string, unknown>) };
  return sendMaybeStreamed(req, res, endpoint === 'branches' ? await listBranches(browse, repo, list) : await listTags(browse, repo, list));
}

/**
 * An answer that may stream: a whole list (docs/decisions/ref-pages.md#the-whole-list-streamed) or a
 * big directory's whole tree (docs/decisions/big-pages.md#the-whole-tree-streamed).
 */
async function sendMaybeStreamed(req: Request, res: Response, prepared: Prepared<ListBody | TreeBody>): Promise<void> {
  if (notModified(req, res, prepared)) return;
  // Every refusal (404, 400) comes from here, before a header is written.
  const body = await prepared.body();
  setValidators(res, prepared);
  for (const [name, value] of Object.entries(prepared.headers ?? {})) res.setHeader(name, value);
  if (!isStreamed(body)) return sendJson(req, res, body);
  return sendStreamed(req, res, body);
}

async function sendStreamed(req: Request, res: Response, body: StreamedJson<Iterable<string> | AsyncIterable<string | Buffer>>): Promise<void> {
  // No Content-Length: the length is known only once the last piece is written (HEAD says none either).
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (req.method === 'HEAD') {
    body.cancel?.();
    res.end();
    return;
  }
  // Leaving the loop early (the client went away) ends the pieces' source; a failure after the
  // first byte reaches the error handler, which destroys the response so it is never taken as whole.
  for await (const chunk of body.chunks()) {
    if (res.destroyed) return;
    // Backpressure: the next piece is built only once the socket took this one, so memory stays a few pieces.
    if (!res.write(chunk)) await drained(res);
  }
  res.end();
}

function isStreamed<B extends ListBody | TreeBody>(body: B): body is Extract<B, { streamed: true }> {
  return typeof body === 'object' && 'streamed' in body;
}

function splitUrl(url: string): [string, string | undefined] {
  const q = url.indexOf('?');
  return q < 0 ? [url, undefined] : [url.slice(0, q), url.slice(q + 1)];
}

/** Below this, the pieces are joined into one buffer; above, written as they are (no copy). */
const JOIN_BELOW_BYTES = 16 * 1024;

/**
 * Written directly: express's send() re-parses the content type and re-checks freshness, both
 * settled already, and would need the body as one string.
 */
function sendJson(req: Request, res: Response, body: JsonBody): void {
  const parts = typeof body === 'string' ? [body] : body;
  let length = 0;
  for (const part of parts) length += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', length);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  if (parts.length === 1 || length < JOIN_BELOW_BYTES) {
    res.end(parts.length === 1 ? parts[0] : Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)), length));
    return;
  }
  // Corked, the pieces leave in one writev; end() uncorks.
  res.cork();
  for (const part of parts) res.write(part);
  res.end();
}

/** seed §4 browsing rule 1 / §5: read access first; without it, the same 404 as no repository. */
function readableRepo(req: Request, res: Response): RepoRef {
  const identity = identityOf(res);
  if (!identity.repo || !canRead(identity.repo.permission)) throw notFound('Not found');
  const requestId = req.headers['x-request-id'];
  return { repoId: identity.repo.id, shard: identity.repo.shard, defaultBranch: identity.repo.default_branch, requestId: typeof requestId === 'string' ? requestId : identity.request_id };
}

/** Answers 304 when the client already holds this body; no object is read for it. */
function notModified(req: Request, res: Response, prepared: Prepared<unknown>): boolean {
  if (!ifNoneMatchHits(req.headers['if-none-match'], prepared.etag)) return false;
  prepared.release?.();
  setValidators(res, prepared);
  res.status(304).end();
  return true;
}

/**
 * Set only once the body is known to exist, so an error never carries a validator. A private
 * repository's answers may sit in the caller's own cache only, never in a shared one.
 */
function setValidators(res: Response, prepared: Prepared<unknown>): void {
  const isPrivate = identityOf(res).repo?.private !== false;
  res.setHeader('ETag', prepared.etag);
  const scope = isPrivate ? 'private' : 'public';
  res.setHeader('Cache-Control', prepared.immutable ? `${scope}, max-age=31536000, immutable` : isPrivate ? 'private, no-cache' : 'no-cache');
}

/**
 * Says which bytes raw sent for a Git LFS pointer (docs/decisions/lfs.md#display): `stored`, the
 * object's; `missing`, the pointer's, since this repository lacks the object. The web's file page reads it.
 */
export const LFS_RAW_HEADER = 'X-Git-LFS';

async function sendRaw(req: Request, res: Response, prepared: Prepared<RawBlob>): Promise<void> {
  if (notModified(req, res, prepared)) return;
  const blob = await prepared.body();
  res.on('close', () => blob.cancel());
  if (blob.lfs) {
    res.setHeader(LFS_RAW_HEADER, blob.lfs.stored ? 'stored' : 'missing');
    // The pointer's validator would outlive it: the object may be uploaded later. An object's
    // content is fixed by its oid, so that is its validator; a missing one's answer has none.
    if (blob.lfs.stored) {
      const lfsPrepared = { ...prepared, etag: etagOf('raw-lfs', blob.lfs.oid) };
      if (notModified(req, res, lfsPrepared)) return blob.cancel();
      setValidators(res, lfsPrepared);
    } else res.setHeader('Cache-Control', identityOf(res).repo?.private !== false ? 'private, no-cache' : 'no-cache');
  } else setValidators(res, prepared);
  res.status(200);
  res.setHeader('Content-Type', blob.contentType);
  res.setHeader('Content-Length', String(blob.size));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // The bytes are user content: never let a browser run them as a page of this origin.
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  if (req.method === 'HEAD') {
    blob.cancel();
    res.end();
    return;
  }
  // Whole already (the object cache): one write with the headers, no stream to wait on.
  if (blob.head.length === blob.size) {
    res.end(blob.head);
    return;
  }
  try {
    if (blob.head.length > 0 && !res.write(blob.head)) await drained(res);
    for (;;) {
      const next = await blob.rest.next();
      if (next.done) break;
      if (res.destroyed) return;
      if (!res.write(next.value)) await drained(res);
    }
  } catch (err) {
    // The client left and the cancelled read failed because of it: nothing to report.
    if (res.destroyed) return;
    throw err;
  }
  res.end();
}

