import { AppError, notFound, validation } from '@githost/errors';
import { ReadCaches, type TreeListing } from '../cache/read-caches.js';
import type { CatfilePool } from './catfile-pool.js';
import type { CatfileProcess } from './catfile-process.js';
import { LoopBudget } from '@githost/runtime';
import { GitError } from './errors.js';
import { endOfRecords } from '@githost/git-records';
import { blobInfoCommands, findEntry, formatEntries, indexTree, mostEntriesOf, pieceOfEntries, sizeOfInfoLine } from './tree-format.js';

/**
 * Object reads through the cat-file pool: no git spawn per read. Names written to cat-file were
 * validated (validate.ts) before they got here. Errors carry the CONTRACT §4 browse messages so
 * callers can pass them on.
 */

/** The commit a hex id (full or abbreviated) names, or null. Annotated tags are peeled. */
export function resolveCommitOid(pool: CatfilePool, gitDir: string, hex: string): Promise<string | null> {
  return pool.with(gitDir, async (p) => {
    p.send([['info', `${hex}^{commit}`]]);
    return (await p.readHeader())?.oid ?? null;
  });
}

/** A commit's raw object, or null when there is no such commit. */
export async function readCommitObject(pool: CatfilePool, gitDir: string, rev: string): Promise<{ oid: string; raw: Buffer } | null> {
  return (await readCommitObjectsOrNull(pool, gitDir, [rev]))[0] ?? null;
}

/** Commits' raw objects in one round trip, each peeled (`^{commit}`), null for one there is no such commit for. */
export function readCommitObjectsOrNull(pool: CatfilePool, gitDir: string, revs: string[]): Promise<Array<{ oid: string; raw: Buffer } | null>> {
  return pool.with(gitDir, async (p) => {
    p.send(revs.map((rev) => ['contents', `${rev}^{commit}`] as ['contents', string]));
    const out: Array<{ oid: string; raw: Buffer } | null> = [];
    for (let i = 0; i < revs.length; i++) {
      const h = await p.readHeader();
      out.push(h ? { oid: h.oid, raw: await p.readBody(h.size) } : null);
    }
    return out;
  });
}

/** Several commits' raw objects in one round trip (log pages, push events). */
export function readCommitObjects(pool: CatfilePool, gitDir: string, oids: string[]): Promise<Array<{ oid: string; raw: Buffer }>> {
  if (oids.length === 0) return Promise.resolve([]);
  return pool.with(gitDir, async (p) => {
    p.send(oids.map((o) => ['contents', o] as ['contents', string]));
    const out: Array<{ oid: string; raw: Buffer }> = [];
    // Answers already buffered resolve without a turn of the event loop: 10,000 of them (a push
    // of many refs) would be read as one task (docs/decisions/many-refs-push.md#yielding).
    const budget = new LoopBudget();
    for (const oid of oids) {
      const h = await p.readHeader();
      if (!h) throw new Error(`commit ${oid} vanished`);
      out.push({ oid: h.oid, raw: await p.readBody(h.size) });
      await budget.pauseIfSpent();
    }
    return out;
  });
}

/**
 * Runs `fn` on a pooled process. An AppError is a complete answer that says "no" (not found, not
 * a directory), thrown only after every byte asked for was read, so the process goes back to the
 * pool; any other failure leaves its stream state unknown and the pool drops it.
 */
export async function withAnswer<T>(pool: CatfilePool, gitDir: string, fn: (p: CatfileProcess) => Promise<T>): Promise<T> {
  const result = await pool.with(gitDir, async (p) => {
    try {
      return { value: await fn(p) };
    } catch (err) {
      if (err instanceof AppError) return { refusal: err };
      throw err;
    }
  });
  if ('refusal' in result) throw result.refusal;
  return result.value;
}

/** Whether the commit exists, to tell "no such commit" from "no such path" after a miss. */
async function commitExists(p: CatfileProcess, commitOid: string): Promise<boolean> {
  p.send([['info', `${commitOid}^{commit}`]]);
  return (await p.readHeader()) !== null;
}

/**
 * Sends `info <commitOid>` ahead of `commands` in the same write when the caller asked that the id
 * name a commit itself (`require_commit`, docs/decisions/gateway-serves-warm-reads.md#one-call-a-cold-read),
 * and reads its answer: not a commit (a tag, a tree, nothing) is `Commit not found`, thrown only
 * after the answers to `commands` were read too, so the process stays in step.
 */
async function sendCheckingCommit(p: CatfileProcess, commitOid: string, requireCommit: boolean, commands: Array<['contents' | 'info', string]>): Promise<void> {
  if (!requireCommit) return p.send(commands);
  p.send([['info', commitOid], ...commands]);
  const h = await p.readHeader();
  if (h?.type === 'commit') return;
  for (const [kind] of commands) {
    const skipped = await p.readHeader();
    if (skipped && kind === 'contents') await p.readBody(skipped.size);
  }
  throw notFound(`Commit not found: ${commitOid}`);
}

function treeSpec(commitOid: string, path: string): string {
  return path === '' ? `${commitOid}^{tree}` : `${commitOid}:${path}`;
}

async function missing(p: CatfileProcess, commitOid: string, path: string): Promise<Error> {
  if (!(await commitExists(p, commitOid))) return notFound(`Commit not found: ${commitOid}`);
  return notFound(`Path not found: ${path}`);
}

/** How a tree listing is read (storage.proto ReadTreeRequest). */
export interface TreeReadOptions {
  /** `commitOid` must name a commit itself, not a tag or a tree. */
  requireCommit?: boolean;
  /** Told the listing's pieces as they are built, when this read builds it. */
  onPiece?: OnListingPiece;
  /** When > 0, only the first `limit` entries (and only their blobs' sizes); `count` stays the whole tree's. */
  limit?: number;
}

/**
 * The tree at `path` under a commit in ls-tree --long -z format. One `info` round trip names the
 * tree; a listing already made for that tree id is answered from `cache`, else the tree is read
 * and its blob sizes asked in one pipelined write (buildListing). A bounded read
 * (docs/decisions/big-pages.md#bounded-tree-read) cuts a kept whole listing, else asks the sizes
 * of its first `limit` entries' blobs only and keeps nothing: the cache holds whole listings. A
 * tree too small to have more than `limit` entries is read whole, as without a limit, so it is kept.
 */
export async function readTreeListing(pool: CatfilePool, cache: ReadCaches, gitDir: string, commitOid: string, path: string, opts: TreeReadOptions = {}): Promise<TreeListing> {
  const header = await withAnswer(pool, gitDir, async (p) => {
    await sendCheckingCommit(p, commitOid, opts.requireCommit === true, [['info', treeSpec(commitOid, path)]]);
    const h = await p.readHeader();
    if (h) return h;
    // A submodule's commit is not in this repository, so `<commit>:<path>` misses for it too.
    const entry = path === '' ? undefined : await findTreeEntry(p, cache, commitOid, path).catch((err: unknown) => (err instanceof AppError ? undefined : Promise.reject(err)));
    if (entry?.mode === '160000') throw validation(`Not a directory: ${path}`);
    throw await missing(p, commitOid, path);
  });
  if (header.type !== 'tree') throw validation(`Not a directory: ${path}`);
  const key = ReadCaches.key(gitDir, header.oid);
  const limit = opts.limit ?? 0;
  if (limit > 0 && limit < mostEntriesOf(header.size)) {
    const kept = cache.trees.get(key);
    if (kept) return { ...kept, entries: kept.entries.subarray(0, endOfRecords(kept.entries, limit)) };
    return pool.with(gitDir, (p) => buildListing(p, header.oid, { limit }));
  }
  return cache.trees.fetch(key, () => pool.with(gitDir, (p) => buildListing(p, header.oid, { onPiece: opts.onPiece })));
}

/**
 * Told each piece of a listing being built, in order, as soon as its blobs' sizes are read
 * (ReadTreeStream; docs/decisions/big-pages.md#the-whole-tree-streamed). Called only when this
 * read builds the listing: a cached one, or one another read is building, is not told.
 */
export type OnListingPiece = (entries: Buffer, listing: { treeOid: string; count: number }) => void;

/** About a gRPC message's worth of records per piece told to OnListingPiece. */
const LISTING_PIECE_BYTES = 64 * 1024;

/**
 * A tree's listing: its blobs' sizes asked in one pipelined write (the `info` commands for all of
 * them; with `limit`, only the first `limit` entries are indexed and their blobs' sizes asked, the
 * rest only counted), then read a piece at a time. With `onPiece` each piece is formatted and told
 * before the next piece's sizes are read, so the first piece leaves after about 900 lookups, not
 * 100,000; without it the listing is one piece. The pieces joined are the listing; `count` is the
 * whole tree's either way.
 */
async function buildListing(p: CatfileProcess, treeOid: string, opts: { onPiece?: OnListingPiece; limit?: number }): Promise<TreeListing> {
  const { onPiece } = opts;
  p.send([['contents', treeOid]]);
  const h = await p.readHeader();
  if (!h || h.type !== 'tree') throw new GitError(`tree ${treeOid} vanished`);
  const raw = await p.readBody(h.size);
  const index = indexTree(raw, opts.limit || Infinity);
  const sizes = new Float64Array(index.blobs);
  const listing = { treeOid, count: index.total };
  if (index.blobs > 0) p.sendBatch(blobInfoCommands(raw, index));
  const pieces: Buffer[] = [];
  let b = 0;
  let from = 0;
  do {
    const { to, blobs } = pieceOfEntries(index, from, onPiece ? LISTING_PIECE_BYTES : Infinity);
    const firstBlob = b;
    if (blobs > 0) {
      await p.scanLines(blobs, (buf, start, end) => {
        sizes[b++] = sizeOfInfoLine(buf, start, end);
      });
    }
    const piece = formatEntries(raw, index, sizes, from, to, firstBlob);
    pieces.push(piece);
    onPiece?.(piece, listing);
    from = to;
  } while (from < index.count);
  return { ...listing, entries: pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces) };
}

/** Parent directories at least this big are kept raw in the cache: reading one costs milliseconds. */
const LARGE_TREE_BYTES = 256 * 1024;

/**
 * The tree entry for `path` (mode as ls-tree prints it, and id), found in its parent tree by a
 * scan of the raw bytes; a large parent's raw object is kept, so reading file after file of a
 * 100,000-entry directory does not move 3 MB through the pipe each time. Throws the CONTRACT §4
 * not-found errors; the process stays usable then.
 */
export async function findTreeEntry(p: CatfileProcess, cache: ReadCaches, commitOid: string, path: string, requireCommit = false): Promise<{ mode: string; oid: string }> {
  const slash = path.lastIndexOf('/');
  const parent = slash < 0 ? '' : path.slice(0, slash);
  const name = Buffer.from(slash < 0 ? path : path.slice(slash + 1), 'utf8');
  await sendCheckingCommit(p, commitOid, requireCommit, [['info', treeSpec(commitOid, parent)]]);
  const h = await p.readHeader();
  if (!h) throw await missing(p, commitOid, path);
  if (h.type !== 'tree') throw notFound(`Path not found: ${path}`);
  const read = async () => {
    p.send([['contents', h.oid]]);
    const c = await p.readHeader();
    if (!c) throw new GitError(`tree ${h.oid} vanished`);
    return p.readBody(c.size);
  };
  const body = h.size >= LARGE_TREE_BYTES ? await cache.largeTrees.fetch(ReadCaches.key(p.gitDir, h.oid), read) : await read();
  const found = findEntry(body, name);
  if (!found) throw notFound(`Path not found: ${path}`);
  return found;
}

/** A file found under a commit: its tree entry, size, and its bytes when it was small enough to read at once. */
export interface FileEntry {
  mode: string;
  oid: string;
  size: number;
  /** The whole content, when at most `inlineUpTo` bytes (findFile). */
  data?: Buffer;
}

/**
 * The file at `path` under a commit in two round trips of one process
 * (docs/decisions/gateway-serves-warm-reads.md#one-call-a-cold-read): the parent tree's and the
 * file's headers in one write, then the parent tree (its entry gives the mode and tells a
 * directory or submodule from a file) and, when the file is a blob of at most `inlineUpTo` bytes,
 * its content in the next. Refusals as findTreeEntry's, thrown after every answer asked for was read.
 */
export async function findFile(p: CatfileProcess, cache: ReadCaches, commitOid: string, path: string, requireCommit: boolean, inlineUpTo: number): Promise<FileEntry> {
  const slash = path.lastIndexOf('/');
  const parent = slash < 0 ? '' : path.slice(0, slash);
  const name = Buffer.from(slash < 0 ? path : path.slice(slash + 1), 'utf8');
  await sendCheckingCommit(p, commitOid, requireCommit, [
    ['info', treeSpec(commitOid, parent)],
    ['info', `${commitOid}:${path}`],
  ]);
  const h = await p.readHeader();
  const file = await p.readHeader();
  if (!h) throw await missing(p, commitOid, path);
  if (h.type !== 'tree') throw notFound(`Path not found: ${path}`);
  const inline = file !== null && file.type === 'blob' && file.size <= inlineUpTo;
  let sent = false;
  const read = async () => {
    p.send(inline ? [['contents', h.oid], ['contents', file.oid]] : [['contents', h.oid]]);
    sent = inline;
    const c = await p.readHeader();
    if (!c) throw new GitError(`tree ${h.oid} vanished`);
    return p.readBody(c.size);
  };
  const body = h.size >= LARGE_TREE_BYTES ? await cache.largeTrees.fetch(ReadCaches.key(p.gitDir, h.oid), read) : await read();
  let data: Buffer | undefined;
  if (sent) {
    const b = await p.readHeader();
    if (!b) throw new GitError(`blob ${file!.oid} vanished`);
    data = await p.readBody(b.size);
  }
  const found = findEntry(body, name);
  if (!found) throw notFound(`Path not found: ${path}`);
  if (found.mode === '040000' || found.mode === '160000') throw validation(`Not a file: ${path}`);
  if (!file) throw notFound(`Path not found: ${path}`);
  if (file.oid !== found.oid) throw new GitError(`blob ${found.oid} vanished`);
  if (inline && !data) {
    // The parent tree came from the cache: the content was not asked with it.
    p.send([['contents', file.oid]]);
    const b = await p.readHeader();
    if (!b) throw new GitError(`blob ${file.oid} vanished`);
    data = await p.readBody(b.size);
  }
  return { mode: found.mode, oid: found.oid, size: file.size, data };
}
