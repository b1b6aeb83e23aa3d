import { conflict } from '@githost/errors';
import { protectionFor, RULE_DEFAULTS, type RefPolicy } from '@githost/ref-policy';
import { summarizeReviews, type ReviewSummary } from './reviews.js';
import { combinedStatusOf, type CombinedStatus } from './statuses.js';
import type { MergeRequest, RepoRef } from './types.js';
import type { WorkflowPorts } from './ports.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * A refusal by the rule: a 409 whose body also carries `reason: "branch_protection"` (CONTRACT §4
 * allows extra fields), so a client tells it from a merge conflict or a moved head without reading
 * the message (the Gitea-compatible API: docs/decisions/gitea-api.md#errors).
 */
const unmet = (message: string) => conflict(message, { reason: 'branch_protection' });

/**
 * services/merge-requests/README.md#merge-gate, merge side: the target branch's rule must be satisfied on
 * `head`, the source tip about to be merged. In order: every required status check (in the rule's
 * order) has `success` as its latest status on the head; then, when the rule requires approvals,
 * enough current approvals by writers and no current change request by a writer (GitHub blocks a
 * protected merge on a change request once reviews are required). Applies to admins as well:
 * there is no bypass. Without a rule (or without the workflow ports) nothing is checked: the
 * seed's merge. `policy`: the repository's rules when the caller asked for them already (read
 * during this request, so a changed rule still governs the very next merge).
 */
export async function assertMergeAllowed(workflow: WorkflowPorts | undefined, repo: RepoRef, mr: MergeRequest, head: string, policy?: Promise<RefPolicy>): Promise<void> {
  if (!workflow) return;
  const rule = protectionFor(await (policy ?? workflow.policy.getRefPolicy(repo.id)), mr.target_branch);
  if (!rule) return;
  if (rule.required_status_checks.length > 0) {
    const latest = await workflow.statuses.latestPerContext(repo.id, head);
    const state = new Map(latest.map((s) => [s.context, s.state]));
    const missing = rule.required_status_checks.find((context) => state.get(context) !== 'success');
    if (missing !== undefined) throw unmet(`Required status check "${missing}" is not successful`);
  }
  if (rule.required_approvals > 0) {
    const summary = summarizeReviews(await workflow.reviews.listReviews(mr.id), head, rule.dismiss_stale_approvals);
    if (summary.approvals < rule.required_approvals) {
      throw unmet(`${plural(rule.required_approvals, 'approving review', 'approving reviews')} required`);
    }
    if (summary.changes_requested > 0) {
      throw unmet(`Changes requested by ${plural(summary.changes_requested, 'reviewer', 'reviewers')} with write access`);
    }
  }
}

/** The detail's `review_summary` and `status`, both about `head`. */
export async function workflowOf(workflow: WorkflowPorts, repo: RepoRef, mr: MergeRequest, head: string): Promise<{ review_summary: ReviewSummary; status: CombinedStatus }> {
  const [policy, reviews, status] = await Promise.all([
    workflow.policy.getRefPolicy(repo.id),
    workflow.reviews.listReviews(mr.id),
    combinedStatusOf(workflow.statuses, repo.id, head),
  ]);
  const dismissStale = (protectionFor(policy, mr.target_branch) ?? RULE_DEFAULTS).dismiss_stale_approvals;
  return { review_summary: summarizeReviews(reviews, head, dismissStale), status };
}
