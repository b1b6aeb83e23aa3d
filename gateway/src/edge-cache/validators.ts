import { ifNoneMatchHits } from '@githost/http';
import { LRUCache } from 'lru-cache';

/**
 * Which refs state a repository is in, as the git-storage ref watch reports it (port of
 * `@githost/refs-watch`): an opaque token that changes whenever the repository's refs may have
 * changed, undefined while the watch of that shard is not live. git-storage waits for the
 * watch's ack before a push, merge or deletion returns, so once a client's write returned the
 * token it reads here is already a new one.
 */
export interface RefVersions {
  version(shard: string, repositoryId: string): string | undefined;
  /** The repository's facts version (`@githost/refs-watch` factsVersion: merge requests, reviews,
   *  settings); absent or undefined: no answer that depends on them is kept. */
  factsVersion?(shard: string, repositoryId: string): string | undefined;
}

/** Everything a browse answer's validators depend on besides the refs (browse's etag.ts and
 *  routes.ts): the repository, its default branch (reads without a ref), its visibility
 *  (Cache-Control scope) and the URL (endpoint, ref, path, query). */
export interface EdgeRequest {
  shard: string;
  repoId: string;
  defaultBranch: string;
  private: boolean;
  /** Path and query exactly as forwarded. */
  url: string;
  /**
   * Set for an answer that also shows the repository's merge requests and settings and the
   * caller's permission (the Gitea pull request list: docs/decisions/pulls-at-the-edge.md): kept
   * per capped permission and current only while the facts version is too.
   */
  facts?: { permission: string };
}

/** The headers browse sends with a 304 for this URL. */
export interface Validators {
  etag: string;
  cacheControl: string;
}

/** A request about to be forwarded: what to store if browse answers it 200 with an ETag. */
export interface Pending {
  key: string;
  version: string;
}

interface Entry extends Validators {
  version: string;
}

export interface EdgeValidators {
  /** The validators to answer 304 with, when the client's If-None-Match holds the stored ETag
   *  and the refs have not changed since it was stored. */
  notModified(request: EdgeRequest, ifNoneMatch: string | undefined): Validators | undefined;
  /** Read before forwarding, so a ref change while browse answers leaves the entry already stale. */
  pending(request: EdgeRequest): Pending | undefined;
  store(pending: Pending, validators: Validators): void;
  readonly size: number;
}

export const DEFAULT_EDGE_ENTRIES = 10_000;

export function edgeKey(r: EdgeRequest): string {
  const base = `${r.shard}\0${r.repoId}\0${r.defaultBranch}\0${r.private ? 'private' : 'public'}\0${r.url}`;
  return r.facts ? `${base}\0facts\0${r.facts.permission}` : base;
}

/**
 * The version an answer to `r` is kept under: the refs version, and for an answer that shows the
 * repository's facts the facts version beside it; undefined (keep nothing, use nothing) when
 * either is unknown.
 */
export function versionOf(versions: RefVersions, r: EdgeRequest): string | undefined {
  const refs = versions.version(r.shard, r.repoId);
  if (!r.facts || refs === undefined) return refs;
  const facts = versions.factsVersion?.(r.shard, r.repoId);
  return facts === undefined ? undefined : `${refs}|${facts}`;
}

/** The validators of browse answers by request, bounded by count; `maxEntries` 0: none kept. */
export function createEdgeValidators(versions: RefVersions, maxEntries = DEFAULT_EDGE_ENTRIES): EdgeValidators {
  const cache = maxEntries > 0 ? new LRUCache<string, Entry>({ max: maxEntries }) : undefined;
  return {
    notModified(request, ifNoneMatch) {
      if (!cache || !ifNoneMatch) return undefined;
      const key = edgeKey(request);
      const entry = cache.get(key);
      if (!entry) return undefined;
      const now = versionOf(versions, request);
      if (now === undefined || now !== entry.version) {
        cache.delete(key);
        return undefined;
      }
      if (!ifNoneMatchHits(ifNoneMatch, entry.etag)) return undefined;
      return { etag: entry.etag, cacheControl: entry.cacheControl };
    },
    pending(request) {
      if (!cache) return undefined;
      const version = versionOf(versions, request);
      return version === undefined ? undefined : { key: edgeKey(request), version };
    },
    store(pending, validators) {
      cache?.set(pending.key, { ...validators, version: pending.version });
    },
    get size() {
      return cache?.size ?? 0;
    },
  };
}
