import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { OID_PATTERN } from '@githost/git-records/object-id';
import { LRUCache } from 'lru-cache';
import { ifNoneMatchHits } from '@githost/http';
import { edgeKey, versionOf, type EdgeRequest, type RefVersions } from './validators.js';

/**
 * Whole browse answers kept at the edge, so a warm read costs what the gateway hop costs (README
 * "Performance"). Keyed as the edge's 304s are (validators.ts: shard, repository, default
 * branch, visibility, URL), and only ever looked up after admission has decided the caller may
 * read the repository: a cached body never reaches someone who could not get it from browse.
 *
 * An answer is current while the repository's refs version is the one read before the request
 * was forwarded (git-storage waits for the watch's ack before a push returns, so read-your-writes
 * holds as it does for the 304s). An answer browse marks immutable (`Cache-Control: immutable`:
 * the URL named a full commit id) is kept whatever the refs do: it can never change.
 */
export interface EdgeAnswers {
  /** The kept answer for this request when it is still current; a stale one is dropped. */
  lookup(request: EdgeRequest): StoredAnswer | undefined;
  /** Read before forwarding, so a ref change while browse answers leaves the entry already stale. */
  pending(request: EdgeRequest): AnswerPending;
  /** Keeps a browse 200 answer; refused when it is not cacheable (see `cacheableHeaders`). */
  store(pending: AnswerPending, status: number, headers: IncomingHttpHeaders, body: Buffer): boolean;
  /** Larger answers pass through without being kept. */
  readonly maxEntryBytes: number;
  readonly size: number;
  readonly bytes: number;
}

export interface StoredAnswer {
  /** The headers browse sent, lower-case names, minus those that belong to one connection or one request. */
  headers: ReadonlyArray<readonly [string, string | string[]]>;
  etag: string;
  cacheControl: string;
  /**
   * A small body as its bytes, one latin1 character each (lossless for any bytes): node writes a
   * latin1 string body together with the headers as one chunk, where a Buffer costs a second
   * chunk and a writev (a tenth of the gateway's CPU on a warm read). A large one stays a Buffer,
   * written without the per-request copy a string would cost.
   */
  body: string | Buffer;
}

/** What to store an answer under: its key and the refs version before it was forwarded (undefined: watch not live). */
export interface AnswerPending {
  key: string;
  url: string;
  version: string | undefined;
  /** An answer showing the repository's facts (EdgeRequest.facts): never immutable. */
  facts?: true;
}

interface Entry extends StoredAnswer {
  /** undefined: immutable, current whatever the refs version. */
  version: string | undefined;
}

/** GITHOST_EDGE_CACHE_BYTES default (docs/configuration.md#variables). */
export const DEFAULT_EDGE_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * Not kept: hop-by-hop headers (RFC 9110 §7.6.1) and those the gateway writes itself for each
 * answer (Date, X-Request-Id). Content-Length is written from the kept body.
 */
const PER_ANSWER = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'date', 'x-request-id', 'content-length']);

/** Bodies up to this many bytes are kept as a latin1 string (see StoredAnswer.body). */
const ONE_CHUNK_BELOW_BYTES = 16 * 1024;

/** Entry overhead beyond the body, for the byte bound: the key, headers and bookkeeping. */
const OVERHEAD_BYTES = 256;

const FULL_COMMIT_ID = new RegExp(`(?:^|/)${OID_PATTERN}(?:[/?]|$)`, 'i');

/**
 * The headers to keep, or undefined when the answer must not be kept: anything but a 200 with
 * browse's validators, an answer that varies by request headers, or one that sets a cookie.
 */
export function cacheableHeaders(status: number, headers: IncomingHttpHeaders): Array<[string, string | string[]]> | undefined {
  if (status !== 200 || typeof headers.etag !== 'string' || typeof headers['cache-control'] !== 'string') return undefined;
  if (headers.vary !== undefined || headers['set-cookie'] !== undefined || headers['content-encoding'] !== undefined) return undefined;
  const kept: Array<[string, string | string[]]> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !PER_ANSWER.has(name)) kept.push([name, value]);
  }
  return kept;
}

/** Browse marks an answer immutable only when the URL named a full commit id; both must hold. */
export function isImmutable(url: string, cacheControl: string): boolean {
  return /(?:^|[\s,])immutable(?:$|[\s,])/.test(cacheControl) && FULL_COMMIT_ID.test(url.split('?', 1)[0]!);
}

/** Browse answers kept in at most `maxBytes` (bodies, keys and headers); 0 keeps nothing. */
export function createEdgeAnswers(versions: RefVersions, maxBytes = DEFAULT_EDGE_CACHE_BYTES): EdgeAnswers {
  // One answer may take an eighth of the budget, so a few 1 MiB blobs cannot flush every tree.
  const maxEntryBytes = maxBytes > 0 ? Math.max(1, Math.floor(maxBytes / 8)) : 0;
  const cache =
    maxBytes > 0
      ? new LRUCache<string, Entry>({ maxSize: maxBytes, maxEntrySize: maxEntryBytes, sizeCalculation: (entry, key) => entry.body.length + key.length + OVERHEAD_BYTES })
      : undefined;
  return {
    lookup(request) {
      if (!cache) return undefined;
      const key = edgeKey(request);
      const entry = cache.get(key);
      if (!entry) return undefined;
      if (entry.version === undefined) return entry;
      const now = versionOf(versions, request);
      if (now === undefined || now !== entry.version) {
        cache.delete(key);
        return undefined;
      }
      return entry;
    },
    pending(request) {
      return { key: edgeKey(request), url: request.url, version: versionOf(versions, request), ...(request.facts ? { facts: true as const } : {}) };
    },
    store(pending, status, headers, body) {
      if (!cache) return false;
      const kept = cacheableHeaders(status, headers);
      if (!kept) return false;
      const etag = headers.etag as string;
      const cacheControl = headers['cache-control'] as string;
      const immutable = !pending.facts && isImmutable(pending.url, cacheControl);
      // Without a live watch only what can never change may be kept.
      if (!immutable && pending.version === undefined) return false;
      if (body.length + pending.key.length + OVERHEAD_BYTES > maxEntryBytes) return false;
      cache.set(pending.key, { headers: kept, etag, cacheControl, body: body.length < ONE_CHUNK_BELOW_BYTES ? body.toString('latin1') : body, version: immutable ? undefined : pending.version });
      return true;
    },
    maxEntryBytes,
    get size() {
      return cache?.size ?? 0;
    },
    get bytes() {
      return cache?.calculatedSize ?? 0;
    },
  };
}

/**
 * Collects a browse answer as it streams to the client and keeps it once it arrived whole; an
 * answer that says it is larger than an entry may be is not collected at all. One that streams
 * without a length (the whole branch or tag list, docs/decisions/ref-pages.md#the-whole-list-streamed)
 * is collected while it still fits an entry and let go the moment it outgrows one, so the edge
 * never holds more of it than it could keep.
 */
export function keepAnswer(answers: EdgeAnswers, pending: AnswerPending, proxyRes: IncomingMessage): void {
  const status = proxyRes.statusCode ?? 0;
  if (!cacheableHeaders(status, proxyRes.headers)) return;
  const header = proxyRes.headers['content-length'];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && (!Number.isInteger(declared) || declared > answers.maxEntryBytes)) return;
  let chunks: Buffer[] | undefined = [];
  let length = 0;
  const collect = (chunk: Buffer): void => {
    length += chunk.length;
    if (length <= answers.maxEntryBytes) return void chunks!.push(chunk);
    chunks = undefined;
    proxyRes.off('data', collect);
  };
  proxyRes.on('data', collect);
  proxyRes.on('end', () => {
    if (chunks && proxyRes.complete && (declared === undefined || length === declared)) answers.store(pending, status, proxyRes.headers, Buffer.concat(chunks, length));
  });
}

/**
 * Answers from a kept answer exactly as browse would: 304 with its validators when the client
 * holds the ETag, else the 200 with every header browse sent (HEAD: without the body).
 */
export function answerFromEdge(method: string, ifNoneMatch: string | undefined, answer: StoredAnswer, res: ServerResponse): void {
  if (ifNoneMatchHits(ifNoneMatch, answer.etag)) {
    res.statusCode = 304;
    res.setHeader('ETag', answer.etag);
    res.setHeader('Cache-Control', answer.cacheControl);
    res.end();
    return;
  }
  res.statusCode = 200;
  for (const [name, value] of answer.headers) res.setHeader(name, value);
  res.setHeader('Content-Length', answer.body.length);
  if (method === 'HEAD') res.end();
  else if (typeof answer.body === 'string') res.end(answer.body, 'latin1');
  else res.end(answer.body);
}
