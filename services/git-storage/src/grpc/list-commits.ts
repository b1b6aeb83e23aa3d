import { validation } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { validateOid } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

/** A page of the log; a page asked for again (a branch that did not move) spawns no git. */
export function listCommits(ctx: StorageContext) {
  return async (req: storage.ListCommitsRequest__Output, call: grpc.ServerUnaryCall<storage.ListCommitsRequest__Output, storage.ListCommitsResponse>): Promise<storage.ListCommitsResponse> => {
    const commit = validateOid(req.commit_oid, 'commit id');
    if (!Number.isInteger(req.limit) || req.limit < 1 || req.limit > 1000) throw validation('limit must be between 1 and 1000');
    const offset = req.offset ?? 0;
    const path = logPathOf(req.path ?? '');
    const not = notOidOf(req.not_oid ?? '');
    const repo = await openRepository(ctx, req.repository_id);
    const commits = await repo.listCommits(commit, req.limit, offset, signalOf(call), path, not);
    return { commits: commits.map((c) => ({ oid: c.oid, raw: c.raw })) };
  };
}

/**
 * A log's path (docs/decisions/gitea-api.md#commits): relative to the root, `/`-separated, no
 * empty, `.` or `..` segment (git would refuse one outside the repository with an error, not an
 * empty log), no NUL; surrounding slashes are dropped. '' is the whole log.
 */
export function logPathOf(raw: string): string {
  const path = raw.replace(/^\/+|\/+$/g, '');
  if (path === '') return '';
  if (path.length > 4096 || path.includes('\0') || path.split('/').some((s) => s === '' || s === '.' || s === '..')) throw validation('path must be a path inside the repository');
  return path;
}

/**
 * A log's `not_oid` (Gitea's `not`, docs/decisions/gitea-api.md#not): '' for none, else a full
 * commit id, checked before it reaches git.
 */
export function notOidOf(raw: string): string {
  return raw === '' ? '' : validateOid(raw, 'not_oid');
}
