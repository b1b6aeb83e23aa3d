import { open, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * What a repository's commit-graph is, read from its files' headers (git's
 * Documentation/gitformat-commit-graph.txt): none, or its layers (the single `commit-graph` file,
 * or the files `commit-graphs/commit-graph-chain` names) and whether every one holds changed-path
 * Bloom filters (a `BDAT` chunk). A split write keeps the layers below it as they are, so a layer
 * written without filters keeps its commits without them until the chain is replaced whole
 * (docs/decisions/history-depth.md#the-first-commit-graph).
 */
export type CommitGraphState = 'none' | 'without-filters' | 'with-filters';

export interface CommitGraph {
  state: CommitGraphState;
  /** Commits in all its layers: what a write that replaces the chain takes up again. */
  commits: number;
}

/** Header (8 bytes), then the chunk table: 12 bytes an entry (4-byte id, 8-byte offset), a zero id last. */
const HEADER_BYTES = 8;
const CHUNK_ENTRY_BYTES = 12;
const SIGNATURE = 'CGPH';
const BLOOM_DATA = 'BDAT';
/** The OID fanout: 256 big-endian counts, the last one the layer's number of commits. */
const OID_FANOUT = 'OIDF';
const LAST_FANOUT_OFFSET = 255 * 4;

export async function commitGraphState(gitDir: string): Promise<CommitGraphState> {
  return (await readCommitGraph(gitDir)).state;
}

export async function readCommitGraph(gitDir: string): Promise<CommitGraph> {
  const info = path.join(gitDir, 'objects', 'info');
  const chain = await readFile(path.join(info, 'commit-graphs', 'commit-graph-chain'), 'latin1').catch(() => undefined);
  const files = chain !== undefined
    ? chain.split('\n').filter((l) => /^[0-9a-f]{40,64}$/.test(l)).map((hash) => path.join(info, 'commit-graphs', `graph-${hash}.graph`))
    : [path.join(info, 'commit-graph')];
  const layers = await Promise.all(files.map(readLayer));
  const commits = layers.reduce((sum, layer) => sum + (layer?.commits ?? 0), 0);
  if (layers.every((layer) => layer === undefined)) return { state: 'none', commits };
  return { state: layers.every((layer) => layer?.chunks.has(BLOOM_DATA)) ? 'with-filters' : 'without-filters', commits };
}

/** The chunk ids and commit count of one commit-graph file; undefined when it is missing or not one. */
async function readLayer(file: string): Promise<{ chunks: Map<string, number>; commits: number } | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    await handle.read(header, 0, HEADER_BYTES, 0);
    if (header.toString('latin1', 0, 4) !== SIGNATURE) return undefined;
    const count = header[6]!;
    const table = Buffer.alloc((count + 1) * CHUNK_ENTRY_BYTES);
    const { bytesRead } = await handle.read(table, 0, table.length, HEADER_BYTES);
    const chunks = new Map<string, number>();
    for (let i = 0; i < count && (i + 1) * CHUNK_ENTRY_BYTES <= bytesRead; i++) {
      const at = i * CHUNK_ENTRY_BYTES;
      chunks.set(table.toString('latin1', at, at + 4), Number(table.readBigUInt64BE(at + 4)));
    }
    const fanout = chunks.get(OID_FANOUT);
    const last = Buffer.alloc(4);
    const read = fanout === undefined ? 0 : (await handle.read(last, 0, 4, fanout + LAST_FANOUT_OFFSET)).bytesRead;
    return { chunks, commits: read === 4 ? last.readUInt32BE(0) : 0 };
  } finally {
    await handle.close();
  }
}
