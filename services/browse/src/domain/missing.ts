import { AppError, notFound, validation } from '@githost/errors';
import type { ReadContext, RepositoryReader } from './ports.js';
import { parseTreeRecords } from './tree.js';

/**
 * Turns a failed tree or blob read into CONTRACT §4's answer by looking at the parent
 * directory: the entry exists with the wrong type -> 400 `Not a directory`/`Not a file`;
 * otherwise 404 `Path not found`. Runs only on the error path, so the happy path stays one read.
 */
export async function explainMissing(
  reader: RepositoryReader,
  ctx: ReadContext,
  commit: string,
  path: string,
  wanted: 'tree' | 'blob',
  cause: unknown,
): Promise<AppError> {
  if (!(cause instanceof AppError) || (cause.kind !== 'not_found' && cause.kind !== 'validation')) return cause as AppError;
  const slash = path.lastIndexOf('/');
  const parent = slash === -1 ? '' : path.slice(0, slash);
  const name = path.slice(slash + 1);
  let entry;
  try {
    const listing = await reader.readTree(ctx, commit, parent);
    entry = parseTreeRecords(listing.entries, parent).find((e) => e.name === name);
  } catch (err) {
    if (err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation')) return notFound(`Path not found: ${path}`);
    throw err;
  }
  if (!entry) return notFound(`Path not found: ${path}`);
  if (wanted === 'tree' && entry.type !== 'tree') return validation(`Not a directory: ${path}`);
  if (wanted === 'blob' && entry.type !== 'blob') return validation(`Not a file: ${path}`);
  return cause;
}
