import type { accounts } from '@githost/protos';
import type { ProtectionService } from '../domain/protections.js';

/** GetRefPolicy: NOT_FOUND `Repository not found` when the id is unknown. */
export function getRefPolicy(protections: ProtectionService) {
  return async (req: accounts.GetRefPolicyRequest__Output): Promise<accounts.GetRefPolicyResponse> => {
    const __t0 = performance.now();
    const policy = await protections.refPolicy(req.repository_id);
    if (process.env.MERGE_TIMING) (await import('node:fs')).appendFileSync(process.env.MERGE_TIMING, `ac policy ${(performance.now() - __t0).toFixed(2)}\n`);
    return {
      default_branch: policy.default_branch,
      allow_tag_changes: policy.allow_tag_changes,
      protections: policy.protections.map((p) => ({ ...p, required_status_checks: [...p.required_status_checks] })),
    };
  };
}
