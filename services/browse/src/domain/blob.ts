/** seed §4 browsing rule 4 / §8: bytes scanned for a zero byte to tell text from binary. */
export const TEXT_SNIFF_BYTES = 8000;

export type BlobEncoding = 'utf-8' | 'base64';

/** seed §4 browsing rule 4: text iff none of the first 8000 bytes (or all, if fewer) is zero. */
export function classifyBlob(head: Uint8Array): BlobEncoding {
  const end = Math.min(head.length, TEXT_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (head[i] === 0) return 'base64';
  return 'utf-8';
}

/** Text is decoded as UTF-8, lossily for invalid sequences (CONTRACT §9); the rest base64. */
export function encodeBlobContent(content: Buffer): { content: string; encoding: BlobEncoding } {
  const encoding = classifyBlob(content);
  return { content: content.toString(encoding === 'utf-8' ? 'utf8' : 'base64'), encoding };
}

/** Content-Type for the raw endpoint (CONTRACT §8). */
export function rawContentType(encoding: BlobEncoding): string {
  return encoding === 'utf-8' ? 'text/plain; charset=utf-8' : 'application/octet-stream';
}

export const MODE_TREE = '040000';
export const MODE_SUBMODULE = '160000';
