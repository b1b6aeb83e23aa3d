import type { RepoRef } from '../domain/types.js';

/**
 * Tells every reader that keeps answers by a repository's facts (the gateway's edge: the Gitea
 * pull request list) that its merge requests changed, and resolves once they all have heard it
 * (@githost/refs-watch `announceChange`; docs/decisions/pulls-at-the-edge.md). Never throws.
 */
export type Announce = (shard: string, repositoryId: string, requestId: string) => Promise<void>;

/**
 * Runs a write, then announces it before its answer goes out, so a read the client makes once it
 * has the answer sees the write. A write that failed is announced too: a failure part way (a
 * merge whose record failed after its ref moved) may still have changed what a list shows.
 */
export async function announced<T>(announce: Announce | undefined, ctx: { repo: RepoRef | null; requestId: string }, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    if (announce && ctx.repo) await announce(ctx.repo.shard, ctx.repo.id, ctx.requestId);
  }
}
