import { notFound, validation } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { runGit } from '../git/command.js';
import { NotFoundError } from '../git/errors.js';
import { readCommitObjects } from '../git/objects.js';
import { validateOid } from '../git/validate.js';
import { existingRepository, type StorageContext } from '../storage-context.js';

/** `rev-list` pages the log (git log's default order); the objects come from the cat-file pool. */
export function listCommits(ctx: StorageContext) {
  return async (req: storage.ListCommitsRequest__Output, call: grpc.ServerUnaryCall<storage.ListCommitsRequest__Output, storage.ListCommitsResponse>): Promise<storage.ListCommitsResponse> => {
    const commit = validateOid(req.commit_oid, 'commit id');
    if (!Number.isInteger(req.limit) || req.limit < 1 || req.limit > 1000) throw validation('limit must be between 1 and 1000');
    const gitDir = await existingRepository(ctx, req.repository_id);
    let oids: string[];
    try {
      const { stdout } = await runGit(
        { name: 'rev-list', flags: [`--max-count=${req.limit}`, `--skip=${req.offset ?? 0}`], args: [commit] },
        { gitDir, timeoutMs: 30_000, signal: signalOf(call) },
      );
      oids = stdout.toString('utf8').split('\n').filter(Boolean);
    } catch (err) {
      if (err instanceof NotFoundError || /bad object|not a commit/i.test((err as Error).message)) throw notFound(`Commit not found: ${commit}`);
      throw err;
    }
    const commits = await readCommitObjects(ctx.pool, gitDir, oids);
    return { commits: commits.map((c) => ({ oid: c.oid, raw: c.raw })) };
  };
}
