import { validation } from '@githost/errors';
import { requestIdOfCall, type grpc } from '@githost/grpc';
import type { accounts } from '@githost/protos';
import type { AccountsDeps } from '../domain/deps.js';
import { adoptPushedBranches as adoptBranches } from '../domain/repositories.js';

/** More than any one push creates in a repository that had no branch; bounds the work of a call. */
const MAX_BRANCHES = 10_000;

/** AdoptPushedBranches: NOT_FOUND `Repository not found` when the id is unknown. */
export function adoptPushedBranches(deps: AccountsDeps) {
  return async (
    req: accounts.AdoptPushedBranchesRequest__Output,
    call: grpc.ServerUnaryCall<accounts.AdoptPushedBranchesRequest__Output, accounts.AdoptPushedBranchesResponse>,
  ): Promise<accounts.AdoptPushedBranchesResponse> => {
    if (req.branches.length > MAX_BRANCHES) throw validation(`At most ${MAX_BRANCHES} branches`);
    const repository = await adoptBranches(deps, req.repository_id, req.branches, { requestId: requestIdOfCall(call) });
    return { default_branch: repository.default_branch };
  };
}
