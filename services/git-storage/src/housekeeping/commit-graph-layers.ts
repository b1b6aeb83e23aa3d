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

/** Header (8 bytes), then the chunk table: 12 bytes an entry (4-byte id, 8-byte offset), a zero id last. */
const HEADER_BYTES = 8;
const CHUNK_ENTRY_BYTES = 12;
const SIGNATURE = 'CGPH';
const BLOOM_DATA = 'BDAT';

export async function commitGraphState(gitDir: string): Promise<CommitGraphState> {
  const info = path.join(gitDir, 'objects', 'info');
  const chain = await readFile(path.join(info, 'commit-graphs', 'commit-graph-chain'), 'latin1').catch(() => undefined);
  const files = chain !== undefined
    ? chain.split('\n').filter((l) => /^[0-9a-f]{40,64}$/.test(l)).map((hash) => path.join(info, 'commit-graphs', `graph-${hash}.graph`))
    : [path.join(info, 'commit-graph')];
  const layers = await Promise.all(files.map(chunkIds));
  if (layers.every((ids) => ids === undefined)) return 'none';
  return layers.every((ids) => ids?.includes(BLOOM_DATA)) ? 'with-filters' : 'without-filters';
}

/** The chunk ids of one commit-graph file; undefined when it is missing or not one. */
async function chunkIds(file: string): Promise<string[] | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    await handle.read(header, 0, HEADER_BYTES, 0);
    if (header.toString('latin1', 0, 4) !== SIGNATURE) return undefined;
    const chunks = header[6]!;
    const table = Buffer.alloc((chunks + 1) * CHUNK_ENTRY_BYTES);
    const { bytesRead } = await handle.read(table, 0, table.length, HEADER_BYTES);
    const ids: string[] = [];
    for (let i = 0; i < chunks && (i + 1) * CHUNK_ENTRY_BYTES <= bytesRead; i++) ids.push(table.toString('latin1', i * CHUNK_ENTRY_BYTES, i * CHUNK_ENTRY_BYTES + 4));
    return ids;
  } finally {
    await handle.close();
  }
}
