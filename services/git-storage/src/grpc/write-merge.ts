import { conflict } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { commitMerge, mergeTree } from '../git/merge.js';
import { validateOid } from '../git/validate.js';
import { existingRepository, type StorageContext } from '../storage-context.js';

/** Writes the merge (or squash) commit only; moving the target ref is UpdateRef's compare-and-swap. */
export function writeMerge(ctx: StorageContext) {
  return async (req: storage.WriteMergeRequest__Output, call: grpc.ServerUnaryCall<storage.WriteMergeRequest__Output, storage.WriteMergeResponse>): Promise<storage.WriteMergeResponse> => {
    const ours = validateOid(req.ours_oid, 'ours id');
    const theirs = validateOid(req.theirs_oid, 'theirs id');
    const gitDir = await existingRepository(ctx, req.repository_id);
    const r = await mergeTree(gitDir, ours, theirs, signalOf(call));
    if (r.unrelated) throw conflict('Refusing to merge unrelated histories', { conflicts: [] });
    // CONTRACT §6: a conflicting merge is refused with the paths, and nothing is written.
    if (!r.clean) throw conflict('Merge conflict', { conflicts: r.conflicts });
    // A squash keeps the three-way merge's tree but forgets the source's history (README "Merge options").
    const parents = req.squash ? [ours] : [ours, theirs];
    const commit = await commitMerge(gitDir, r.tree, parents, req.author, req.committer, req.message);
    return { commit_oid: commit, tree_oid: r.tree };
  };
}
