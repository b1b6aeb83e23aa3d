import { AppError, validation } from '@githost/errors';
import { LFS_OID, type LfsObjectStore } from './object-store.js';

/** git-lfs docs/api/batch.md: one object of a batch request. */
export interface BatchObject {
  oid: string;
  size: number;
}

export interface BatchRequest {
  operation: 'upload' | 'download';
  objects: BatchObject[];
}

interface Action {
  href: string;
  header?: Record<string, string>;
  expires_in: number;
}

export interface BatchObjectAnswer {
  oid: string;
  size: number;
  authenticated?: boolean;
  actions?: { download?: Action; upload?: Action; verify?: Action };
  error?: { code: number; message: string };
}

export interface BatchLimits {
  /** LFS_MAX_OBJECT_BYTES. */
  maxObjectBytes: number;
  /** REPOSITORY_QUOTA_BYTES; undefined: none. */
  quotaBytes?: number;
}

export interface BatchLinks {
  object(oid: string): string;
  verify(oid: string): string;
  /** Headers that let the caller's client perform this action on the object of `size` bytes
   *  (docs/decisions/lfs.md). */
  header(oid: string, operation: 'upload' | 'download', size: number): Record<string, string> | undefined;
}

/** batch.md: an action's `expires_in`, after which the client asks the batch endpoint again; the
 *  grant in its header expires with it. */
export const ACTION_EXPIRES_IN_SECONDS = 900;
/** More objects than git-lfs ever sends in one batch (it sends 100): the request is refused. */
const MAX_BATCH_OBJECTS = 1000;

/** The batch request's shape (batch.md "Requests"); anything else is a validation error. */
export function parseBatchRequest(body: unknown): BatchRequest {
  if (typeof body !== 'object' || body === null) throw validation('The batch request must be a JSON object');
  const b = body as Record<string, unknown>;
  if (b.operation !== 'upload' && b.operation !== 'download') throw validation('operation must be "upload" or "download"');
  if (b.transfers !== undefined && (!Array.isArray(b.transfers) || !b.transfers.includes('basic'))) throw validation('Only the "basic" transfer is supported');
  if (b.hash_algo !== undefined && b.hash_algo !== 'sha256') throw new AppError('conflict', 'Only the sha256 hash algorithm is supported');
  if (!Array.isArray(b.objects) || b.objects.length === 0) throw validation('objects must be a non-empty array');
  if (b.objects.length > MAX_BATCH_OBJECTS) throw validation(`A batch holds at most ${MAX_BATCH_OBJECTS} objects`);
  const objects = b.objects.map((o: unknown) => {
    const obj = (typeof o === 'object' && o !== null ? o : {}) as Record<string, unknown>;
    return { oid: typeof obj.oid === 'string' ? obj.oid : String(obj.oid), size: typeof obj.size === 'number' ? obj.size : Number.NaN };
  });
  return { operation: b.operation, objects };
}

/**
 * Answers a batch (batch.md "Successful Responses"): per object, the action to take or the
 * object's own error — 422 for an invalid oid or size, 404 for a missing download — so one bad
 * object never fails the others.
 */
export async function answerBatch(store: LfsObjectStore, repositoryId: string, request: BatchRequest, limits: BatchLimits, links: BatchLinks, repositoryBytes: () => Promise<number>): Promise<BatchObjectAnswer[]> {
  const action = (href: string, oid: string, operation: 'upload' | 'download', size: number): Action => {
    const header = links.header(oid, operation, size);
    return { href, ...(header ? { header } : {}), expires_in: ACTION_EXPIRES_IN_SECONDS };
  };
  let budget: number | undefined;
  const answers: BatchObjectAnswer[] = [];
  for (const { oid, size } of request.objects) {
    if (!LFS_OID.test(oid)) {
      answers.push({ oid, size, error: { code: 422, message: 'oid must be a sha256 in lowercase hex' } });
      continue;
    }
    if (!Number.isSafeInteger(size) || size < 0) {
      answers.push({ oid, size, error: { code: 422, message: 'size must be a whole number of bytes' } });
      continue;
    }
    const stored = await store.size(repositoryId, oid);
    if (request.operation === 'download') {
      if (stored === undefined) answers.push({ oid, size, error: { code: 404, message: 'Object does not exist' } });
      else answers.push({ oid, size: stored, authenticated: true, actions: { download: action(links.object(oid), oid, 'download', stored) } });
      continue;
    }
    // Already here: no action, the client skips it (batch.md "upload").
    if (stored === size) {
      answers.push({ oid, size });
      continue;
    }
    if (size > limits.maxObjectBytes) {
      answers.push({ oid, size, error: { code: 422, message: `The object is ${size} bytes; the largest allowed is ${limits.maxObjectBytes}` } });
      continue;
    }
    if (limits.quotaBytes !== undefined) {
      budget ??= limits.quotaBytes - (await repositoryBytes());
      if (size > budget) {
        answers.push({ oid, size, error: { code: 413, message: `The repository is over its quota of ${limits.quotaBytes} bytes` } });
        continue;
      }
      budget -= size;
    }
    answers.push({ oid, size, authenticated: true, actions: { upload: action(links.object(oid), oid, 'upload', size), verify: action(links.verify(oid), oid, 'upload', size) } });
  }
  return answers;
}
