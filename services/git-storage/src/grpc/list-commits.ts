import { notFound, validation } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { ReadCaches } from '../cache/read-caches.js';
import { runGit } from '../git/command.js';
import { GitTimeoutError, NotFoundError } from '../git/errors.js';
import { readCommitObjects } from '../git/objects.js';
import { validateOid } from '../git/validate.js';
import { existingRepository, type StorageContext } from '../storage-context.js';

/**
 * `rev-list` pages the log (git log's default order); the objects come from the cat-file pool.
 * The page of ids below a commit id never changes, so it is cached: a page asked for again (a
 * branch that did not move) costs one cat-file round trip and no git spawn.
 */
export function listCommits(ctx: StorageContext) {
  return async (req: storage.ListCommitsRequest__Output, call: grpc.ServerUnaryCall<storage.ListCommitsRequest__Output, storage.ListCommitsResponse>): Promise<storage.ListCommitsResponse> => {
    const commit = validateOid(req.commit_oid, 'commit id');
    if (!Number.isInteger(req.limit) || req.limit < 1 || req.limit > 1000) throw validation('limit must be between 1 and 1000');
    const offset = req.offset ?? 0;
    const gitDir = await existingRepository(ctx, req.repository_id);
    const signal = signalOf(call);
    const page = () => ctx.cache.logs.fetch(ReadCaches.key(gitDir, commit, req.limit, offset), () => revList(gitDir, commit, req.limit, offset, signal));
    let oids: string[];
    try {
      oids = await page().catch((err: unknown) => {
        // A concurrent caller's load that this call joined was cancelled by that caller: ask again.
        if (err instanceof GitTimeoutError && err.message.endsWith('cancelled') && !signal.aborted) return page();
        throw err;
      });
    } catch (err) {
      if (err instanceof NotFoundError || /bad object|not a commit/i.test((err as Error).message)) throw notFound(`Commit not found: ${commit}`);
      throw err;
    }
    const commits = await readCommitObjects(ctx.pool, gitDir, oids);
    return { commits: commits.map((c) => ({ oid: c.oid, raw: c.raw })) };
  };
}

async function revList(gitDir: string, commit: string, limit: number, offset: number, signal: AbortSignal): Promise<string[]> {
  const { stdout } = await runGit({ name: 'rev-list', flags: [`--max-count=${limit}`, `--skip=${offset}`], args: [commit] }, { gitDir, timeoutMs: 30_000, signal });
  return stdout.toString('latin1').split('\n').filter(Boolean);
}
