import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, httpStatusOf, toAppError, validation } from '@githost/errors';
import { directoryBytes, type DiskObjectStore } from '../lfs/disk-object-store.js';
import { LFS_OID, type LfsObjectStore } from '../lfs/object-store.js';
import { repositoryPath } from '../repository-path.js';
import type { StorageContext } from '../storage-context.js';

/**
 * The three object requests a batch's actions point at (git-lfs docs/api/basic-transfers.md):
 * download, upload and verify, once the caller is known to hold a right to them. One definition
 * for both ways in: through the gateway (lfs-transport.ts) and straight to the shard
 * (lfs-direct.ts, docs/decisions/lfs.md#direct-transfers).
 */

/** git-lfs docs/api: every request and answer of the LFS API carries this media type. */
export const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';
/** A batch or lock request is a few KiB; anything far larger is not one. */
const MAX_JSON_BYTES = 1024 * 1024;

export type LfsStore = LfsObjectStore & Pick<DiskObjectStore, 'repositoryDir'>;

export interface ObjectLimits {
  /** LFS_MAX_OBJECT_BYTES. */
  maxObjectBytes: number;
}

export function sendLfs(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': LFS_MEDIA_TYPE, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * git-lfs docs/api/batch.md "Response Errors": an LFS error is `{message}` (here with the error's
 * details and the request id beside it) in LFS's own media type, with the status the one error
 * table gives the kind. The same answer on both ways in; returns the error as classified, so the
 * caller can log a server fault and count the status.
 */
export function sendLfsError(res: ServerResponse, err: unknown, requestId: string | undefined): AppError {
  const appError = err instanceof AppError ? err : toAppError(err);
  sendLfs(res, httpStatusOf(appError.kind), { ...(appError.details ?? {}), message: appError.message, request_id: requestId });
  return appError;
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== LFS_MEDIA_TYPE && type !== 'application/json') throw new AppError('unsupported_media_type', `Content-Type must be ${LFS_MEDIA_TYPE}`);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > MAX_JSON_BYTES) throw new AppError('too_large', 'Request body too large');
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw validation('The request body ended early');
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw validation('The request body is not valid JSON');
  }
}

/** Bytes the repository holds on the shard (git directory and LFS objects), for REPOSITORY_QUOTA_BYTES. */
export function repositoryBytes(ctx: StorageContext, store: LfsObjectStore, repositoryId: string) {
  return async () => (await directoryBytes(repositoryPath(ctx.dataDir, repositoryId))) + (await store.usage(repositoryId));
}

/** Streams the object this repository holds; 404 when it holds none. Resolves with its size once
 *  the answer has started. */
export async function sendObject(store: LfsObjectStore, repositoryId: string, oid: string, res: ServerResponse): Promise<number> {
  const found = LFS_OID.test(oid) ? await store.read(repositoryId, oid) : undefined;
  if (!found) throw new AppError('not_found', 'Object does not exist');
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(found.size) });
  found.body.on('error', (err) => res.destroy(err));
  res.on('close', () => found.body.destroy());
  found.body.pipe(res);
  return found.size;
}

/** The upload's size from its Content-Length (basic-transfers.md: git-lfs sends the object's size). */
export function declaredSize(req: IncomingMessage): number {
  const declared = req.headers['content-length'];
  const size = declared !== undefined && /^\d{1,16}$/.test(declared) ? Number(declared) : Number.NaN;
  if (!Number.isSafeInteger(size)) throw validation('Content-Length is required: the object\'s size in bytes');
  return size;
}

/**
 * Stores an upload: held to exactly its Content-Length by the store, LFS_MAX_OBJECT_BYTES and
 * REPOSITORY_QUOTA_BYTES checked before a byte is read (docs/decisions/lfs.md "Limits"). Resolves
 * with the object's size once it is checked, fsynced and in place.
 */
export async function receiveObject(ctx: StorageContext, store: LfsObjectStore, limits: ObjectLimits, repositoryId: string, oid: string, req: IncomingMessage): Promise<number> {
  if (!LFS_OID.test(oid)) throw validation('oid must be a sha256 in lowercase hex');
  const size = declaredSize(req);
  if (size > limits.maxObjectBytes) throw new AppError('too_large', `The object is ${size} bytes; the largest allowed is ${limits.maxObjectBytes}`);
  const quota = ctx.pushLimits.quotaBytes;
  if (quota !== undefined && (await store.size(repositoryId, oid)) === undefined && (await repositoryBytes(ctx, store, repositoryId)()) + size > quota) {
    throw new AppError('too_large', `The repository is over its quota of ${quota} bytes`);
  }
  await store.write(repositoryId, oid, size, req).catch((err: unknown) => {
    // The client went away mid-upload: its mistake, and the store kept nothing.
    if (!(err instanceof AppError) && !req.complete) throw validation(`The upload ended before its ${size} bytes`);
    throw err;
  });
  return size;
}

/** A verify (basic-transfers.md): one stat, since an upload's 200 came only after the object was
 *  checked, fsynced and in place. */
export async function verifyObject(store: LfsObjectStore, repositoryId: string, oid: string, body: unknown): Promise<void> {
  const claimed = (body as { size?: unknown } | null)?.size;
  const stored = LFS_OID.test(oid) ? await store.size(repositoryId, oid) : undefined;
  if (stored === undefined) throw new AppError('not_found', 'Object does not exist');
  if (claimed !== stored) throw validation(`The object has ${stored} bytes, not ${String(claimed)}`);
}
