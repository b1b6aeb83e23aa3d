import { notFound, validation } from '@githost/errors';
import type { CatfilePool } from './catfile-pool.js';
import { formatLsTree, parseRawTree, type RawTreeEntry } from './tree-format.js';

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
export function readCommitObject(pool: CatfilePool, gitDir: string, rev: string): Promise<{ oid: string; raw: Buffer } | null> {
  return pool.with(gitDir, async (p) => {
    p.send([['contents', `${rev}^{commit}`]]);
    const h = await p.readHeader();
    if (!h) return null;
    return { oid: h.oid, raw: await p.readBody(h.size) };
  });
}

/** Several commits' raw objects in one round trip (log pages, push events). */
export function readCommitObjects(pool: CatfilePool, gitDir: string, oids: string[]): Promise<Array<{ oid: string; raw: Buffer }>> {
  if (oids.length === 0) return Promise.resolve([]);
  return pool.with(gitDir, async (p) => {
    p.send(oids.map((o) => ['contents', o] as ['contents', string]));
    const out: Array<{ oid: string; raw: Buffer }> = [];
    for (const oid of oids) {
      const h = await p.readHeader();
      if (!h) throw new Error(`commit ${oid} vanished`);
      out.push({ oid: h.oid, raw: await p.readBody(h.size) });
    }
    return out;
  });
}

/** Whether the commit exists, to tell "no such commit" from "no such path" after a miss. */
async function commitExists(pool: CatfilePool, gitDir: string, commitOid: string): Promise<boolean> {
  return (await resolveCommitOid(pool, gitDir, commitOid)) !== null;
}

function treeSpec(commitOid: string, path: string): string {
  return path === '' ? `${commitOid}^{tree}` : `${commitOid}:${path}`;
}

async function missing(pool: CatfilePool, gitDir: string, commitOid: string, path: string): Promise<Error> {
  if (!(await commitExists(pool, gitDir, commitOid))) return notFound(`Commit not found: ${commitOid}`);
  return notFound(`Path not found: ${path}`);
}

export interface TreeListing {
  treeOid: string;
  entries: Buffer;
  count: number;
}

/** The tree at `path` under a commit in ls-tree --long -z format, blob sizes in one pipelined round trip. */
export async function readTreeListing(pool: CatfilePool, gitDir: string, commitOid: string, path: string): Promise<TreeListing> {
  const result = await pool.with(gitDir, async (p) => {
    p.send([['contents', treeSpec(commitOid, path)]]);
    const h = await p.readHeader();
    if (!h) return null;
    const body = await p.readBody(h.size);
    if (h.type !== 'tree') return { header: h, entries: [] as RawTreeEntry[] };
    const entries = parseRawTree(body);
    const blobs = entries.filter((e) => e.mode !== '040000' && e.mode !== '160000');
    const sizes = new Map<string, number>();
    if (blobs.length > 0) {
      p.send(blobs.map((e) => ['info', e.oid] as ['info', string]));
      for (const e of blobs) {
        const bh = await p.readHeader();
        if (bh) sizes.set(e.oid, bh.size);
      }
    }
    return { header: h, entries, sizes };
  });
  if (!result) {
    // A submodule's commit is not in this repository, so `<commit>:<path>` misses for it too.
    const entry = path === '' ? undefined : await findTreeEntry(pool, gitDir, commitOid, path).catch(() => undefined);
    if (entry?.mode === '160000') throw validation(`Not a directory: ${path}`);
    throw await missing(pool, gitDir, commitOid, path);
  }
  if (result.header.type !== 'tree') throw validation(`Not a directory: ${path}`);
  return { treeOid: result.header.oid, entries: formatLsTree(result.entries, result.sizes ?? new Map()), count: result.entries.length };
}

/** The tree entry for `path` (mode and id), found in its parent tree. */
export async function findTreeEntry(pool: CatfilePool, gitDir: string, commitOid: string, path: string): Promise<{ mode: string; oid: string }> {
  const slash = path.lastIndexOf('/');
  const parent = slash < 0 ? '' : path.slice(0, slash);
  const name = Buffer.from(slash < 0 ? path : path.slice(slash + 1), 'utf8');
  const found = await pool.with(gitDir, async (p) => {
    p.send([['contents', treeSpec(commitOid, parent)]]);
    const h = await p.readHeader();
    if (!h) return null;
    const body = await p.readBody(h.size);
    if (h.type !== 'tree') return undefined;
    return parseRawTree(body).find((e) => e.name.equals(name)) ?? undefined;
  });
  if (found === null) throw await missing(pool, gitDir, commitOid, path);
  if (found === undefined) throw notFound(`Path not found: ${path}`);
  return { mode: found.mode, oid: found.oid };
}
