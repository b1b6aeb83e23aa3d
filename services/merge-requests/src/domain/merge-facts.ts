import { validation } from '@githost/errors';
import { requireVisible } from './access.js';
import { usernamesOf } from './authors.js';
import { listMergeRequestsPage, type Deps } from './merge-requests.js';
import type { PageRequest, ReviewRequestStore } from './ports.js';
import type { MergeRequest, RepoRef } from './types.js';

/** As many as one page of the list holds (docs/decisions/list-paging.md: per_page up to 100). */
export const MERGE_FACTS_MAX = 100;

/** What a list record lacks about merging, for one merge request (services/merge-requests/README.md#merge-facts): mergeability, merger, pending review requests. */
export interface MergeFacts {
  number: number;
  /** Whether the source tip merges cleanly into the target tip, as the detail's `mergeable`; null
   *  unless open with both branches present. */
  mergeable: boolean | null;
  /** Who merged it (the record's `merged_by`, by name); null unless merged or when the account is gone. */
  merged_by_username: string | null;
  /** Whose reviews are asked for and not yet given, oldest request first (services/merge-requests/README.md#review-requests). */
  requested_reviewers: string[];
}

/** `numbers=1,2,3`: 1 to 100 distinct positive merge request numbers, in the order given. */
export function parseNumbers(raw: unknown): number[] {
  const message = `numbers must be 1 to ${MERGE_FACTS_MAX} merge request numbers, comma-separated`;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,8}(,[1-9][0-9]{0,8})*$/.test(raw)) throw validation(message);
  const numbers = [...new Set(raw.split(',').map(Number))];
  if (numbers.length > MERGE_FACTS_MAX) throw validation(message);
  return numbers;
}

/**
 * `GET .../merge-requests/merge-facts?numbers=`: mergeability and merger of a page of merge
 * requests in one answer, so a list (the Gitea-compatible API's pull requests) shows what the
 * detail shows without one detail per row. The branch tips come from one ref listing; each
 * (target tip, source tip) pair goes through the same check as the detail, which git-storage's
 * client caches by both shas. Numbers that do not exist are left out.
 */
export async function mergeFactsOf(deps: FactsDeps, repo: RepoRef | null, rawNumbers: unknown): Promise<MergeFacts[]> {
  const r = requireVisible(repo);
  const numbers = parseNumbers(rawNumbers);
  const byNumber = await factsOfRecords(deps, r, await deps.store.findByNumbers(r.id, numbers));
  return numbers.flatMap((n) => byNumber.get(n) ?? []);
}

/**
 * `GET .../merge-requests/with-merge-facts?state=&per_page=&cursor=`: one cursor page of the list
 * (as `listMergeRequestsPage`, counted) with each record's merge facts, so a client showing both
 * (the Gitea-compatible API's pull requests) makes one call, not two
 * (services/merge-requests/README.md#merge-facts).
 */
export async function listWithMergeFactsPage(deps: FactsDeps & Deps, repo: RepoRef | null, rawState: unknown, page: PageRequest) {
  const found = await listMergeRequestsPage(deps, repo, rawState, page);
  const byNumber = await factsOfRecords(deps, requireVisible(repo), found.rows);
  return { ...found, rows: found.rows.map((mr) => ({ ...mr, ...withoutNumber(byNumber.get(mr.number)) })) };
}

const withoutNumber = (facts: MergeFacts | undefined) => ({ mergeable: facts?.mergeable ?? null, merged_by_username: facts?.merged_by_username ?? null, requested_reviewers: facts?.requested_reviewers ?? [] });

type FactsDeps = Pick<Deps, 'store' | 'git' | 'users'> & { requests: ReviewRequestStore };

/** The facts of merge requests already read, by number: one ref listing, one review request query, one user lookup. */
async function factsOfRecords(deps: FactsDeps, r: RepoRef, found: MergeRequest[]): Promise<Map<number, MergeFacts>> {
  const open = found.filter((mr) => mr.state === 'open');
  const [tips, requests] = await Promise.all([
    open.length > 0 ? deps.git.branchTips(r.id) : new Map<string, string>(),
    found.length > 0 ? deps.requests.listRequests(found.map((mr) => mr.id)) : [],
  ]);
  const nameOf = await usernamesOf(deps.users, [...found.map((mr) => (mr.state === 'merged' ? mr.merged_by : null)), ...requests.map((q) => q.reviewer_id)]);
  const requested = (mrId: string) => requests.filter((q) => q.mr_id === mrId).flatMap((q) => nameOf(q.reviewer_id) ?? []);
  const mergeable = await Promise.all(
    found.map(async (mr) => {
      const source = tips.get(mr.source_branch);
      const target = tips.get(mr.target_branch);
      if (mr.state !== 'open' || source === undefined || target === undefined) return null;
      return (await deps.git.checkMerge(r.id, target, source)).clean;
    }),
  );
  return new Map(found.map((mr, i) => [mr.number, { number: mr.number, mergeable: mergeable[i]!, merged_by_username: mr.state === 'merged' ? nameOf(mr.merged_by) : null, requested_reviewers: requested(mr.id) }]));
}
