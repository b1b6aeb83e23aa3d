import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { parseLfsPointer } from '@githost/git-records/lfs-pointer';
import { encodePath, repoApiPath } from '../clients/api.js';
import type { Blob } from '../clients/types.js';
import type { PageContext } from './registry.js';

/**
 * The largest Git LFS object the file page reads to show inline: the bound the page already has
 * for ordinary files (browse's default BROWSE_MAX_BLOB_BYTES, over which the blob API answers
 * 413 and the page offers raw instead).
 */
export const LFS_SHOWN_MAX_BYTES = 10 * 1024 * 1024;

/** What the file page shows for a Git LFS pointer (docs/decisions/lfs.md#display). */
export type LfsFile =
  | { state: 'missing' }
  | { state: 'too-large'; size: number }
  | { state: 'shown'; size: number; content: Buffer; text: boolean };

/**
 * When the blob is a Git LFS pointer, what raw serves for it (the web reaches data only through
 * the API): the object's bytes (read whole up to LFS_SHOWN_MAX_BYTES), or `missing` when this
 * repository never received the object. undefined: not a pointer, an ordinary file.
 */
export async function lfsFileOf(ctx: PageContext, owner: string, name: string, blob: Blob): Promise<LfsFile | undefined> {
  if (blob.encoding !== 'utf-8' || !parseLfsPointer(Buffer.from(blob.content))) return undefined;
  const raw = await ctx.api.stream(repoApiPath(owner, name, `/raw/${encodePath(`${blob.commit}/${blob.path}`)}`));
  const body = raw.body as unknown as WebReadableStream<Uint8Array> | null;
  if (raw.headers.get('x-git-lfs') !== 'stored') {
    await body?.cancel();
    return { state: 'missing' };
  }
  const size = Number(raw.headers.get('content-length'));
  if (!Number.isSafeInteger(size) || size > LFS_SHOWN_MAX_BYTES) {
    await body?.cancel();
    return { state: 'too-large', size };
  }
  const chunks: Buffer[] = [];
  if (body) for await (const chunk of body) chunks.push(Buffer.from(chunk));
  // raw's Content-Type is browse's text-or-binary verdict (seed §4 browsing rule 4) on the object's bytes.
  return { state: 'shown', size, content: Buffer.concat(chunks), text: (raw.headers.get('content-type') ?? '').startsWith('text/') };
}
