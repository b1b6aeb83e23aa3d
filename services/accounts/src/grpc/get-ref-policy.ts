import type { accounts } from '@githost/protos';
import type { AccountsDeps } from '../domain/deps.js';
import { refPolicyOf } from '../domain/protections.js';

/** GetRefPolicy: NOT_FOUND `Repository not found` when the id is unknown. */
export function getRefPolicy(deps: AccountsDeps) {
  return async (req: accounts.GetRefPolicyRequest__Output): Promise<accounts.GetRefPolicyResponse> => {
    const policy = await refPolicyOf(deps, req.repository_id);
    return {
      default_branch: policy.default_branch,
      allow_tag_changes: policy.allow_tag_changes,
      protections: policy.protections.map((p) => ({ ...p, required_status_checks: [...p.required_status_checks] })),
    };
  };
}
