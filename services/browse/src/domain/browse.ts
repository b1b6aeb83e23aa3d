import { AppError, notFound, tooLarge, validation } from '@githost/errors';
import { encodeBlobContent, MODE_SUBMODULE, MODE_TREE } from './blob.js';
import { parseCommit } from '@githost/git-records';
import { LFS_POINTER_MAX_BYTES, parseLfsPointer } from '@githost/git-records/lfs-pointer';
import { COMPARE_MAX_COMMITS, compareFields, DIFF_LIMITS, parseCompareSpec } from './compare.js';
import { etagOf } from './etag.js';
import { parseLimit } from './limit.js';
import { FreshRefs } from './fresh-refs.js';
import { explainMissing } from './missing.js';
import type { ObjectCache } from './object-cache.js';
import type { BlobStream, RawCommit, ReadContext, RefVersions, RepositoryReader, TreeStream } from './ports.js';
import { RefSnapshots, type RefLookup } from './ref-snapshots.js';
import { expressionBaseOf, isAbbreviatedId, revisionExpressionOf } from './revision-expressions.js';
import { decodeSegments, prefixesOfName, refPrefixes, resolveCommitsRef, resolveRefName, resolveRefAndPath, type RefAndPath, type ResolvedRef } from './ref-and-path.js';
import { buildRefSet, type RefSet } from './refs.js';
import { openRaw, rawFromBytes, type RawBlob } from './raw.js';
import { parseTreeRecords } from './tree.js';
import { isWholeTree, streamedTree, type StreamedTree } from './tree-stream.js';
import { pageOfRefs, refPageLinks, type RefPage } from './ref-pages.js';
import { branchListJson, branchRecordOf, tagListJson, tagRecordOf, type RefList, type StreamedJson } from './ref-lists.js';

/** The repository as the gateway resolved it. */
export interface RepoRef extends ReadContext {
  defaultBranch: string;
}

/** A JSON answer as pieces written in order: the large ones are cached bytes, never copied. */
export type JsonBody = string | ReadonlyArray<string | Buffer>;

/**
 * An answer whose validator is known before its body is built, so a conditional request is
 * answered 304 without reading any object.
 */
export interface Prepared<T = JsonBody> {
  etag: string;
  /** The request addressed a full commit id: the answer can never change. */
  immutable: boolean;
  body(): Promise<T>;
  /** Headers of a 200 beside the validators (a paged list's Link and X-Total-Count). */
  headers?: Record<string, string>;
  /** The answer is not sent (a 304): lets go what body() would have used (a tree read opened early). */
  release?(): void;
}

export interface BrowseOptions {
  /** Blobs above this size are not inlined into JSON (413). */
  maxBlobBytes: number;
  /** Ref versions from the watch; without it every ref read goes to git-storage. */
  refVersions?: RefVersions;
  /** Approximate bytes of ref snapshots kept. */
  refSnapshotBytes?: number;
  onRefLookup?: (result: RefLookup) => void;
}

const json = JSON.stringify;

/**
 * What the browse use cases below (seed §4 "Browsing", CONTRACT §4, §5, §8, §9) read through:
 * git-storage (`ports.ts`), the object cache and the snapshots of refs kept between requests.
 */
export interface BrowseDeps {
  reader: RepositoryReader;
  cache: ObjectCache;
  refSnapshots: RefSnapshots;
  /** Blobs above this size are not inlined into JSON (413). */
  maxBlobBytes: number;
}

/** The browse dependencies over one reader and cache: ref lookups are coalesced, then kept while the watch says they hold. */
export function browseDeps(reader: RepositoryReader, cache: ObjectCache, options: BrowseOptions): BrowseDeps {
  const fresh = new FreshRefs((ctx, prefixes) => reader.listRefs(ctx, prefixes));
  const noWatch: RefVersions = { version: () => undefined };
  const refSnapshots = new RefSnapshots(options.refVersions ?? noWatch, (ctx, prefixes) => fresh.list(ctx, prefixes), { maxBytes: options.refSnapshotBytes, onLookup: options.onRefLookup });
  return { reader, cache, refSnapshots, maxBlobBytes: options.maxBlobBytes };
}

/** seed §4 browsing rules 2 and 3. */
export async function getTree(deps: BrowseDeps, repo: RepoRef, refAndPath: string, rawLimit?: unknown): Promise<Prepared<TreeBody>> {
  const limit = rawLimit === undefined ? undefined : parseTreeLimit(rawLimit);
  const { ref, path } = await split(deps, repo, refAndPath);
  const headOf = (commit: string) => () => `{"ref":${json(ref.ref)},"commit":"${commit}","path":${json(path)},"entries":`;
  if (limit !== undefined) {
    const commit = await commitOf(deps, repo, ref);
    return treeHead(deps, repo, { ref, path, commit, limit, head: headOf(commit) });
  }
  const treeKey = (commit: string) => `tree\0${commit}\0${path}`;
  const { commit, opened } = await treeCommitOf(deps, repo, ref, path, treeKey);
  const head = headOf(commit);
  return {
    etag: etagOf('tree', ref.ref, commit, path),
    immutable: ref.kind === 'sha',
    body: () => treeBody(deps, repo, { commit, path, key: treeKey(commit), head: head() }, opened),
    release: () => opened?.cancel(),
  };
}

/**
 * The commit a tree read is for. A full commit id no request confirmed yet is confirmed by
 * opening the tree's read with requireCommit (one call a cold read:
 * docs/decisions/gateway-serves-warm-reads.md#one-call-a-cold-read); the open read is handed to the body.
 */
async function treeCommitOf(deps: BrowseDeps, repo: RepoRef, ref: ResolvedRef, path: string, key: (commit: string) => string): Promise<{ commit: string; opened?: TreeStream }> {
  if (ref.kind === 'sha' && !deps.cache.has(confirmedKey(repo, ref.sha)) && !deps.cache.has(key(ref.sha))) {
    const opened = await deps.reader.openTree(repo, ref.sha, path, true).catch(() => undefined);
    if (opened) {
      deps.cache.set(confirmedKey(repo, ref.sha), ref.sha);
      return { commit: ref.sha, opened };
    }
  }
  return { commit: await commitOf(deps, repo, ref) };
}

/**
 * seed §4 browsing rule 3's entries: kept whole in the object cache (a warm read sends those bytes
 * as they are), else built from git-storage's pieces. A directory that comes in one piece is built
 * whole and kept, as before; a bigger one streams (docs/decisions/big-pages.md#the-whole-tree-streamed).
 * Concurrent cold reads share the first read: those that joined one that streams read their own.
 */
async function treeBody(deps: BrowseDeps, repo: RepoRef, t: { commit: string; path: string; key: string; head: string }, opened?: TreeStream): Promise<TreeBody> {
  const entriesOf = (stream: TreeStream) => json(parseTreeRecords(stream.first, t.path));
  const streamedOf = (stream: TreeStream) => streamedTree(stream, t.path, t.head, deps.cache.claimFill(t.key) ? { cache: deps.cache, key: t.key } : undefined);
  let streamed: StreamedTree | undefined;
  const kept = await deps.cache.getOrLoadRaw(t.key, async () => {
    const stream = opened ?? (await openListing(deps, repo, t.commit, t.path));
    opened = undefined;
    if (isWholeTree(stream)) return Buffer.from(entriesOf(stream));
    streamed = streamedOf(stream);
    return undefined;
  });
  // Kept already, or read by a request this one joined: the read opened to confirm the id is not needed.
  opened?.cancel();
  if (kept) return [t.head, kept, '}'];
  if (streamed) return streamed;
  const stream = await openListing(deps, repo, t.commit, t.path);
  return isWholeTree(stream) ? [t.head, entriesOf(stream), '}'] : streamedOf(stream);
}

async function openListing(deps: BrowseDeps, repo: RepoRef, commit: string, path: string): Promise<TreeStream> {
  return deps.reader.openTree(repo, commit, path).catch(async (err: unknown) => {
    throw await explainMissing(deps.reader, repo, commit, path, 'tree', err);
  });
}

/** The most entries `?limit=` gives: a page's worth (docs/decisions/big-pages.md#bounded-tree-read). */
export const TREE_LIMIT_MAX = 1000;

/** `?limit=` of a tree: a decimal integer from 1 to TREE_LIMIT_MAX; anything else is 400. */
export function parseTreeLimit(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d{1,7}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= TREE_LIMIT_MAX)) throw validation(`limit must be an integer from 1 to ${TREE_LIMIT_MAX}`);
  return n;
}

async function readListing(deps: BrowseDeps, repo: RepoRef, commit: string, path: string, limit: number): Promise<{ entries: Uint8Array; count: number }> {
  return deps.reader.readTree(repo, commit, path, { limit }).catch(async (err: unknown) => {
    throw await explainMissing(deps.reader, repo, commit, path, 'tree', err);
  });
}

/**
 * The tree answer's shape with only its first `limit` entries, and how many there are in all in
 * X-Total-Count (docs/decisions/big-pages.md#bounded-tree-read): a page that shows 1,000 entries of
 * a 100,000-entry directory asks git-storage for, builds, sends and parses 1,000, not 100,000. A
 * git-storage that ignores the limit sends every entry: only the first `limit` are decoded then
 * too. Kept as `<total> <entries JSON>` in the object cache.
 */
function treeHead(deps: BrowseDeps, repo: RepoRef, t: { ref: ResolvedRef; path: string; commit: string; limit: number; head: () => string }): Prepared {
  const prepared: Prepared = {
    etag: etagOf('tree', t.ref.ref, t.commit, t.path, 'limit', t.limit),
    immutable: t.ref.kind === 'sha',
    body: async () => {
      const kept = await deps.cache.getOrLoadBytes(`tree-head\0${t.commit}\0${t.path}\0${t.limit}`, async () => {
        const listing = await readListing(deps, repo, t.commit, t.path, t.limit);
        return `${listing.count} ${json(parseTreeRecords(listing.entries, t.path, t.limit))}`;
      });
      const space = kept.indexOf(0x20);
      prepared.headers = { 'X-Total-Count': kept.subarray(0, space).toString('latin1') };
      return [t.head(), kept.subarray(space + 1), '}'];
    },
  };
  return prepared;
}

/** seed §4 browsing rule 4. */
export async function getBlob(deps: BrowseDeps, repo: RepoRef, refAndPath: string): Promise<Prepared> {
  const { ref, path } = await split(deps, repo, refAndPath);
  if (path === '') throw validation('Path required');
  const blobKey = (commit: string) => `blob\0${commit}\0${path}`;
  const { commit, load } = await confirmedByRead(deps, repo, ref, blobKey, async (commit, requireCommit) => {
    const stream = await openFile(deps, repo, commit, path, deps.maxBlobBytes, requireCommit);
    if (stream.tooLarge) throw tooLarge('Blob too large; use the raw endpoint');
    const chunks: Buffer[] = [];
    for await (const chunk of stream.chunks) chunks.push(chunk);
    const { content, encoding } = encodeBlobContent(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    return `"sha":"${stream.oid}","size":${stream.size},"content":${json(content)},"encoding":"${encoding}"`;
  });
  return {
    etag: etagOf('blob', ref.ref, commit, path),
    immutable: ref.kind === 'sha',
    body: async () => {
      const fields = await deps.cache.getOrLoadBytes(blobKey(commit), () => load(commit));
      return [`{"ref":${json(ref.ref)},"commit":"${commit}","path":${json(path)},`, fields, '}'];
    },
  };
}

/**
 * The commit `ref` names, confirmed in this repository, and how to load an answer for it
 * (docs/decisions/gateway-serves-warm-reads.md#one-call-a-cold-read). A full commit id no request
 * has confirmed here yet is confirmed by the read itself: `load(id, true)` asks git-storage to
 * refuse an id that is not a commit of this repository, so a cold read is one gRPC call, not a
 * ResolveRevision beside it. Any failure of that read (no such commit, a tag's id, a missing
 * path, a blob too large, git-storage away) falls back to confirming first and reading after, as
 * every warm read does, so every answer and refusal is the one it always was. The object cache
 * (keyed by id alone) only learns what was read from this repository.
 */
async function confirmedByRead(
  deps: BrowseDeps,
  repo: RepoRef,
  ref: ResolvedRef,
  key: (commit: string) => string,
  load: (commit: string, requireCommit: boolean) => Promise<string>,
): Promise<{ commit: string; load: (commit: string) => Promise<string> }> {
  if (ref.kind === 'sha' && !deps.cache.has(confirmedKey(repo, ref.sha)) && !deps.cache.has(key(ref.sha))) {
    const read = await load(ref.sha, true).then(
      (answer) => ({ answer }),
      () => undefined,
    );
    if (read) {
      deps.cache.set(confirmedKey(repo, ref.sha), ref.sha);
      return { commit: ref.sha, load: (commit) => (commit === ref.sha ? Promise.resolve(read.answer) : load(commit, false)) };
    }
  }
  return { commit: await commitOf(deps, repo, ref), load: (commit) => load(commit, false) };
}

/**
 * CONTRACT §8 raw: the bytes. A blob the object cache can keep is read once and then served
 * from memory, as `blob` is (without it every raw read was a ReadBlob stream and two cat-file
 * round trips in git-storage); a larger one is streamed, whatever its size, never held whole.
 * A Git LFS pointer serves the object it points at when this repository holds it
 * (docs/decisions/lfs.md#display).
 */
export async function getRaw(deps: BrowseDeps, repo: RepoRef, refAndPath: string): Promise<Prepared<RawBlob>> {
  const { ref, path } = await split(deps, repo, refAndPath);
  if (path === '') throw validation('Path required');
  const commit = await commitOf(deps, repo, ref);
  return {
    etag: etagOf('raw', commit, path),
    immutable: ref.kind === 'sha',
    body: async () => {
      const keepBelow = deps.cache.maxEntryBytes;
      if (keepBelow > 0) {
        // Its own key: the blob endpoint keeps JSON, this the bytes themselves.
        const bytes = await deps.cache.getOrLoadRaw(`raw\0${commit}\0${path}`, async () => {
          const stream = await openFile(deps, repo, commit, path, keepBelow);
          if (stream.tooLarge) {
            stream.cancel();
            return undefined;
          }
          const chunks: Buffer[] = [];
          for await (const chunk of stream.chunks) chunks.push(chunk);
          return Buffer.concat(chunks);
        });
        if (bytes) return lfsObjectOf(deps, repo, rawFromBytes(bytes));
      }
      return lfsObjectOf(deps, repo, await openRaw(await openFile(deps, repo, commit, path, 0)));
    },
  };
}

/**
 * The object a Git LFS pointer names, streamed, when this repository holds it; otherwise the
 * blob as it is, marked when it is a pointer whose object was never uploaded here.
 */
async function lfsObjectOf(deps: BrowseDeps, repo: RepoRef, blob: RawBlob): Promise<RawBlob> {
  // A pointer is at most 1024 bytes, all of them already read to classify the blob.
  if (blob.size > LFS_POINTER_MAX_BYTES || blob.head.length !== blob.size) return blob;
  const pointer = parseLfsPointer(blob.head);
  if (!pointer) return blob;
  const object = await deps.reader.openLfsObject(repo, pointer.oid);
  if (!object) return { ...blob, lfs: { oid: pointer.oid, stored: false } };
  blob.cancel();
  try {
    return { ...(await openRaw(object)), lfs: { oid: pointer.oid, stored: true } };
  } catch (err) {
    object.cancel();
    throw err;
  }
}

/**
 * docs/decisions/gitea-api.md#commits: the opt-in `page` of the log (beside the spec's `limit`),
 * which the spec's answer has not: the commits `(page - 1) * limit` further down, the log's
 * length in `X-Total-Count`, and a Link header (relative, as the ref pages write it) with `next`
 * and `last` while more remain, `prev` and `first` past page 1. The length is git-storage's
 * CountCommits, kept by commit id, path and `not` commit: a commit's history never changes.
 * `not` (resolved to `notCommit`, '' for none) leaves that commit's history out
 * (docs/decisions/gitea-api.md#not).
 */
function commitLogPage(deps: BrowseDeps, repo: RepoRef, at: { ref: ResolvedRef; commit: string; notCommit: string; limit: number; log: CommitLogPage }): Prepared {
  const { ref, commit, notCommit, limit, log } = at;
  const load = () =>
    deps.cache.getOrLoadBytes(`log\0${commit}\0${limit}\0${log.page}\0${log.filePath}\0${notCommit}`, async () => {
      // One more than the page, to know whether another follows.
      const commits = await deps.reader.listCommits(repo, commit, limit + 1, (log.page - 1) * limit, log.filePath, notCommit);
      const more = commits.length > limit ? '1' : '0';
      return `${more}[${commits.slice(0, limit).map((c) => commitJson(deps, c.oid, c.raw)).join(',')}]`;
    });
  // No count (a git-storage older than CountCommits) is kept nowhere: the next read asks again.
  const count = () =>
    deps.cache
      .getOrLoad(`log-count\0${commit}\0${log.filePath}\0${notCommit}`, async () => {
        const n = await deps.reader.countCommits(repo, commit, log.filePath, notCommit);
        if (n === undefined) throw NO_COUNT;
        return String(n);
      })
      .then(Number, (err: unknown) => {
        if (err === NO_COUNT) return undefined;
        throw err;
      });
  const prepared: Prepared = {
    etag: etagOf('commits', ref.ref, commit, limit, log.page, log.filePath, notCommit),
    immutable: ref.kind === 'sha',
    body: async () => {
      const [loaded, total] = await Promise.all([load(), count()]);
      const link = commitPageLinks(log, loaded[0] === 0x31, total === undefined ? undefined : Math.max(1, Math.ceil(total / limit)));
      const headers: Record<string, string> = total === undefined ? {} : { 'X-Total-Count': String(total) };
      if (link !== undefined) headers.Link = link;
      prepared.headers = headers;
      return [`{"ref":${json(ref.ref)},"commits":`, loaded.subarray(1), '}'];
    },
  };
  return prepared;
}

const NO_COUNT = Symbol('no count');

function commitPageLinks(log: CommitLogPage, more: boolean, pages: number | undefined): string | undefined {
  const url = (n: number) => {
    const params = new URLSearchParams(log.rawQuery);
    params.set('page', String(n));
    return `<${log.path}?${params.toString()}>`;
  };
  const links: string[] = [];
  if (log.page > 1) links.push(`${url(log.page - 1)}; rel="prev"`);
  if (more) links.push(`${url(log.page + 1)}; rel="next"`);
  if (pages !== undefined && log.page < pages) links.push(`${url(pages)}; rel="last"`);
  if (log.page > 1) links.push(`${url(1)}; rel="first"`);
  return links.length > 0 ? links.join(', ') : undefined;
}

/** The page of the log asked for, and the request's own path and query for its Link header. */
export interface CommitLogPage {
  page: number;
  path: string;
  rawQuery: string;
  /** Only the commits touching this file or directory ('' : all), checked by git-storage. */
  filePath: string;
  /** A branch, tag or full commit id whose history is left out ('' : none), as Gitea's `not`. */
  not: string;
}

/** Past this page number no log has commits (a million pages of 100): refused as malformed. */
const MAX_LOG_PAGE = 1_000_000;

/**
 * `page` of the commit log (docs/decisions/gitea-api.md#commits): undefined when absent, so the
 * spec's answer stays as it is; a value that is not an integer from 1 to 1,000,000, or given
 * twice, is a 400 (the log used to ignore it: a typo must not look like paging).
 */
export function parseLogPage(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,6}$/.test(raw) || Number(raw) > MAX_LOG_PAGE) throw validation(`page must be an integer from 1 to ${MAX_LOG_PAGE}`);
  return Number(raw);
}

/**
 * `path` of the commit log (docs/decisions/gitea-api.md#commits): '' when absent; given twice is a
 * 400. git-storage checks the path itself (inside the repository, no `..`).
 */
export function parseLogPath(raw: unknown): string {
  if (raw === undefined) return '';
  if (typeof raw !== 'string') throw validation('path must be given once');
  return raw;
}

/**
 * `not` of the commit log (docs/decisions/gitea-api.md#not): '' when absent or empty; given twice
 * is a 400. It names a branch, tag or full commit id as the log's ref does.
 */
export function parseLogNot(raw: unknown): string {
  if (raw === undefined) return '';
  if (typeof raw !== 'string') throw validation('not must be given once');
  return raw;
}

/** seed §4 browsing rule 5. */
export async function listCommits(deps: BrowseDeps, repo: RepoRef, refRaw: string, limitRaw: unknown, log?: CommitLogPage): Promise<Prepared> {
  const not = log?.not ?? '';
  // The paged log also reads revision expressions (`main~3`, an abbreviated id): their bases' refs too.
  const refName = log === undefined ? '' : decodeSegments(refRaw).join('/');
  const bases = log === undefined ? [] : [expressionBaseOf(refName), expressionBaseOf(not)].filter((b) => b !== '');
  const refs = await refSetOf(deps, repo, [...new Set([...refPrefixes(refRaw, repo.defaultBranch, true), ...(not === '' ? [] : prefixesOfName(not)), ...bases.flatMap((b) => (b === 'HEAD' ? [`refs/heads/${repo.defaultBranch}`] : prefixesOfName(b)))])]);
  const ref = log === undefined ? resolveCommitsRef(refRaw, refs, repo.defaultBranch) : await logRef(deps, repo, refName, refs, () => resolveCommitsRef(refRaw, refs, repo.defaultBranch));
  const early = ref.kind === 'sha' && log === undefined ? await logConfirmingTip(deps, repo, ref.sha, limitRaw) : undefined;
  const commit = early ? ref.sha : await commitOf(deps, repo, ref);
  const limit = parseLimit(limitRaw);
  // `not` is resolved to a commit of this repository before git-storage sees it: an unknown one is 404.
  const notCommit = not === '' ? '' : await commitOf(deps, repo, await logRef(deps, repo, not, refs, () => resolveRefName(not, refs)));
  if (log !== undefined) return commitLogPage(deps, repo, { ref, commit, notCommit, limit, log });
  const key = `log\0${commit}\0${limit}`;
  return {
    etag: etagOf('commits', ref.ref, commit, limit),
    immutable: ref.kind === 'sha',
    body: async () => {
      const list = await deps.cache.getOrLoadBytes(key, async () => early ?? commitListJson(deps, await deps.reader.listCommits(repo, commit, limit, 0)));
      return [`{"ref":${json(ref.ref)},"commits":`, list, '}'];
    },
  };
}

/**
 * The paged log's ref or `not` (docs/decisions/gitea-api.md#revision-expressions): a branch, tag
 * or full id as ever (`resolve`); else a revision expression, its base resolved here as a ref is
 * (a branch beats a tag; `HEAD` is the default branch; an id is confirmed in this repository)
 * and its steps by git-storage. The answer is kept by the base's commit id and the steps, never
 * by the text: `main~3` moves with `main`. An abbreviated base may become ambiguous later, so it
 * is resolved every time.
 */
async function logRef(deps: BrowseDeps, repo: RepoRef, name: string, refs: RefSet, resolve: () => ResolvedRef): Promise<ResolvedRef> {
  let plain: unknown;
  try {
    return resolve();
  } catch (err) {
    plain = err;
  }
  const expr = revisionExpressionOf(name);
  if (!expr) throw plain;
  const missing = () => notFound(`Ref not found: ${name}`);
  const viaStorage = async (expression: string) => {
    try {
      return await deps.reader.resolveCommitExpression(repo, expression);
    } catch (err) {
      if (err instanceof AppError && err.kind === 'not_found') throw missing();
      throw err;
    }
  };
  let base: ResolvedRef;
  if (expr.base === 'HEAD') {
    const sha = refs.branches.get(repo.defaultBranch);
    if (sha === undefined) throw missing();
    base = { ref: name, kind: 'branch', sha };
  } else {
    try {
      base = resolveRefName(expr.base, refs);
    } catch {
      if (!isAbbreviatedId(expr.base)) throw missing();
      return { ref: name, kind: 'branch', sha: await viaStorage(`${expr.base.toLowerCase()}${expr.steps}`) };
    }
  }
  const baseCommit = await commitOf(deps, repo, base).catch(() => {
    throw missing();
  });
  if (expr.steps === '') return { ref: name, kind: base.kind, sha: baseCommit };
  const sha = await deps.cache.getOrLoad(`expr\0${baseCommit}\0${expr.steps}`, () => viaStorage(`${baseCommit}${expr.steps}`));
  // What an id's steps reach is a commit of this repository: confirmed without another call.
  if (base.kind === 'sha') deps.cache.set(confirmedKey(repo, sha), sha);
  return { ref: name, kind: base.kind, sha };
}

function commitListJson(deps: BrowseDeps, commits: RawCommit[]): string {
  return `[${commits.map((c) => commitJson(deps, c.oid, c.raw)).join(',')}]`;
}

/**
 * The spec's log page below a full commit id no request has confirmed here yet, read without a
 * ResolveRevision first (docs/decisions/gateway-serves-warm-reads.md#one-call-a-cold-read): git's
 * log of a commit starts with that commit, so a page whose first commit is the id asked for
 * confirms it is a commit of this repository. Anything else (a tag's id, which the log peels; no
 * such object; git-storage away) is undefined, and the read confirms
 * first as it always did, so every answer and refusal stays the one it was.
 */
async function logConfirmingTip(deps: BrowseDeps, repo: RepoRef, sha: string, limitRaw: unknown): Promise<string | undefined> {
  const limit = parseLimit(limitRaw);
  if (deps.cache.has(confirmedKey(repo, sha)) || deps.cache.has(`log\0${sha}\0${limit}`)) return undefined;
  const commits = await deps.reader.listCommits(repo, sha, limit, 0).catch(() => undefined);
  if (commits?.[0]?.oid !== sha) return undefined;
  deps.cache.set(confirmedKey(repo, sha), sha);
  return commitListJson(deps, commits);
}

/** seed §4 browsing rule 6; full or abbreviated hex (CONTRACT §9). */
export async function getCommit(deps: BrowseDeps, repo: RepoRef, shaRaw: string): Promise<Prepared> {
  let sha: string;
  try {
    sha = decodeURIComponent(shaRaw);
  } catch {
    sha = shaRaw;
  }
  if (!/^[0-9a-fA-F]{4,40}$/.test(sha)) throw notFound(`Commit not found: ${sha}`);
  const hex = sha.toLowerCase();
  if (hex.length === 40) {
    if (!deps.cache.has(confirmedKey(repo, hex))) {
      // Cold: ReadCommit peels `^{commit}` in this repository, so one call both confirms the id
      // (what confirmCommit asks) and reads it, instead of ResolveRevision then ReadCommit
      // (docs/decisions/gateway-serves-warm-reads.md#cold-reads).
      const found = await readCommit(deps, repo, hex, sha);
      deps.cache.set(confirmedKey(repo, hex), found.oid);
      const body = commitJson(deps, found.oid, found.raw);
      return { etag: etagOf('commit', found.oid), immutable: true, body: () => Promise.resolve(body) };
    }
    const oid = await confirmCommit(deps, repo, hex);
    if (oid === null) throw notFound(`Commit not found: ${sha}`);
    return { etag: etagOf('commit', oid), immutable: true, body: () => deps.cache.getOrLoad(`commit\0${oid}`, () => loadCommit(deps, repo, oid, sha)) };
  }
  // An abbreviated id must be resolved first and may become ambiguous later: not immutable.
  const found = await readCommit(deps, repo, hex, sha);
  const body = commitJson(deps, found.oid, found.raw);
  return { etag: etagOf('commit', found.oid), immutable: false, body: () => Promise.resolve(body) };
}

/** Where a paged list's links point: the request's path and query as it came. */
export interface ListRequest {
  path: string;
  rawQuery: string;
  page: RefPage | undefined;
}

/**
 * seed §4 browsing rule 7; with `page` one page of the branches whose names match
 * (docs/decisions/ref-pages.md), the same shape, its Link and X-Total-Count headers. The whole
 * list streams, its validator known before its first byte (docs/decisions/ref-pages.md#the-whole-list-streamed).
 */
export async function listBranches(deps: BrowseDeps, repo: RepoRef, list?: ListRequest): Promise<Prepared<ListBody>> {
  if (!list?.page) {
    const refs = await refListOf(deps, repo, 'refs/heads/');
    return { etag: etagOf('branches', repo.defaultBranch, refs.digest), immutable: false, body: () => Promise.resolve(branchListJson(refs, repo.defaultBranch)) };
  }
  // A page of the kept whole list: records for its refs only, nothing sorted again after a push.
  const { items, total } = pageOfRefs((await refListOf(deps, repo, 'refs/heads/')).refs, list.page, (r) => r.name.slice('refs/heads/'.length));
  return pagedList('branches', json({ branches: items.map((r) => branchRecordOf(r, repo.defaultBranch)), default_branch: repo.defaultBranch }), total, list.path, list.rawQuery, list.page);
}

/** CONTRACT §8 tags; paged and streamed as branches are. */
export async function listTags(deps: BrowseDeps, repo: RepoRef, list?: ListRequest): Promise<Prepared<ListBody>> {
  if (!list?.page) {
    const refs = await refListOf(deps, repo, 'refs/tags/');
    return { etag: etagOf('tags', refs.digest), immutable: false, body: () => Promise.resolve(tagListJson(refs)) };
  }
  const { items, total } = pageOfRefs((await refListOf(deps, repo, 'refs/tags/')).refs, list.page, (r) => r.name.slice('refs/tags/'.length));
  return pagedList('tags', json({ tags: items.map(tagRecordOf) }), total, list.path, list.rawQuery, list.page);
}

/** A list's answer: whole, or streamed when it is longer than one piece. */
export type ListBody = JsonBody | StreamedJson;

/** The tree answer: whole, or a big directory's streamed (docs/decisions/big-pages.md#the-whole-tree-streamed). */
export type TreeBody = JsonBody | StreamedTree;

/** Every ref under `prefix`, ordered and digested (kept with the snapshot while the watch holds). */
async function refListOf(deps: BrowseDeps, repo: RepoRef, prefix: string): Promise<RefList> {
  try {
    return await deps.refSnapshots.refList(repo, prefix);
  } catch (err) {
    // The gateway vouched for the repository but storage has none: to the caller it does not exist.
    if (err instanceof AppError && err.kind === 'not_found') throw notFound('Not found');
    throw err;
  }
}

function pagedList(kind: string, body: string, total: number, path: string, rawQuery: string, at: RefPage): Prepared<ListBody> {
  const link = refPageLinks(path, rawQuery, at, total);
  const headers: Record<string, string> = { 'X-Total-Count': String(total), ...(link !== undefined && { Link: link }) };
  return { etag: etagOf(kind, at.page, at.perPage, at.q, total, body), immutable: false, body: () => Promise.resolve(body), headers };
}

/**
 * GitHub's three-dot compare: head's commits not in base and the diff from their merge base to
 * head. Unrelated histories have no merge base: 404, as GitHub answers.
 */
export async function compareRefs(deps: BrowseDeps, repo: RepoRef, specRaw: string): Promise<Prepared> {
  const spec = parseCompareSpec(specRaw);
  const refs = await refSetOf(deps, repo, [...new Set([...prefixesOfName(spec.base), ...prefixesOfName(spec.head)])]);
  const base = resolveRefName(spec.base, refs);
  const head = resolveRefName(spec.head, refs);
  const [baseCommit, headCommit] = await Promise.all([commitOf(deps, repo, base), commitOf(deps, repo, head)]);
  return {
    etag: etagOf('compare', base.ref, baseCommit, head.ref, headCommit),
    immutable: base.kind === 'sha' && head.kind === 'sha',
    body: async () => {
      // Everything but the echoed names is a function of the two commit ids, both confirmed in this repository.
      const fields = await deps.cache.getOrLoadBytes(`compare\0${baseCommit}\0${headCommit}`, async () => {
        const cmp = await deps.reader.compare(repo, baseCommit, headCommit, COMPARE_MAX_COMMITS);
        if (cmp.mergeBase === '') throw notFound(`No common ancestor between ${base.ref} and ${head.ref}`);
        // Behind or identical: head is the merge base, nothing changed.
        const diff = cmp.mergeBase === headCommit ? { files: [], truncated: false } : await deps.reader.diff(repo, cmp.mergeBase, headCommit, DIFF_LIMITS);
        return compareFields(cmp, diff, (oid, raw) => commitJson(deps, oid, raw));
      });
      return [`{"base":${json(base.ref)},"head":${json(head.ref)},"base_sha":"${baseCommit}","head_sha":"${headCommit}",`, fields, '}'];
    },
  };
}

/** seed §4 browsing rule 2, loading only the refs that could match. */
async function split(deps: BrowseDeps, repo: RepoRef, refAndPath: string): Promise<RefAndPath> {
  const refs = await refSetOf(deps, repo, refPrefixes(refAndPath, repo.defaultBranch, false));
  return resolveRefAndPath(refAndPath, refs, repo.defaultBranch);
}

async function refSetOf(deps: BrowseDeps, repo: RepoRef, prefixes: readonly string[]): Promise<RefSet> {
  try {
    return buildRefSet(prefixes.length === 0 ? [] : await deps.refSnapshots.list(repo, prefixes));
  } catch (err) {
    // The gateway vouched for the repository but storage has none: to the caller it does not exist.
    if (err instanceof AppError && err.kind === 'not_found') throw notFound('Not found');
    throw err;
  }
}

/** Branches and tags name commits already; a 40-hex id must be confirmed (CONTRACT §9). */
async function commitOf(deps: BrowseDeps, repo: RepoRef, ref: ResolvedRef): Promise<string> {
  if (ref.kind !== 'sha') return ref.sha;
  const commit = await confirmCommit(deps, repo, ref.sha);
  if (commit === null) throw notFound(`Ref not found: ${ref.ref}`);
  return commit;
}

/**
 * The commit a full id names in THIS repository, or null. Cached content is keyed by object id
 * alone (the same id is the same content in every repository), so this per-repository check is
 * what stops a private repository's objects being read through another repository that lacks them.
 */
async function confirmCommit(deps: BrowseDeps, repo: RepoRef, hex: string): Promise<string | null> {
  const key = confirmedKey(repo, hex);
  const cached = deps.cache.get(key);
  if (cached !== undefined) return cached;
  try {
    const commit = await deps.reader.resolveCommit(repo, hex);
    deps.cache.set(key, commit);
    return commit;
  } catch (err) {
    if (err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation')) return null;
    throw err;
  }
}

/** Where confirmCommit keeps the commit a full id names in one repository. */
function confirmedKey(repo: RepoRef, hex: string): string {
  return `has\0${repo.repoId}\0${hex}`;
}

/** `requireCommit`: the read confirms `commit` (confirmedByRead), whose fallback explains any failure. */
async function openFile(deps: BrowseDeps, repo: RepoRef, commit: string, path: string, maxBytes: number, requireCommit = false): Promise<BlobStream> {
  let stream: BlobStream;
  try {
    stream = await deps.reader.openBlob(repo, commit, path, maxBytes, requireCommit);
  } catch (err) {
    if (requireCommit) throw err;
    throw await explainMissing(deps.reader, repo, commit, path, 'blob', err);
  }
  // CONTRACT §9: a submodule (or a directory, should storage hand one out) is not a file.
  if (stream.mode === MODE_SUBMODULE || stream.mode === MODE_TREE) {
    stream.cancel();
    throw validation(`Not a file: ${path}`);
  }
  return stream;
}

async function loadCommit(deps: BrowseDeps, repo: RepoRef, hex: string, asGiven: string): Promise<string> {
  const found = await readCommit(deps, repo, hex, asGiven);
  return commitJson(deps, found.oid, found.raw);
}

async function readCommit(deps: BrowseDeps, repo: RepoRef, hex: string, asGiven: string) {
  try {
    return await deps.reader.readCommit(repo, hex);
  } catch (err) {
    if (err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation')) throw notFound(`Commit not found: ${asGiven}`);
    throw err;
  }
}

/** Commit records are immutable: parsed and serialised once per id. */
function commitJson(deps: BrowseDeps, oid: string, raw: Uint8Array): string {
  const key = `commit\0${oid}`;
  const hit = deps.cache.get(key);
  if (hit !== undefined) return hit;
  const text = json(parseCommit(oid, raw));
  deps.cache.set(key, text);
  return text;
}
