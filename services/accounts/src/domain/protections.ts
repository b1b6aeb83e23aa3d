import { notFound } from '@githost/errors';
import { validateBranchPattern, type RefPolicy } from '@githost/ref-policy';
import { parseProtectionRule } from './protection-input.js';
import type { AccountsDeps } from './deps.js';
import type { StoredProtection } from './ports.js';
import { manageableRepositoryId, readableRepositoryId, REPOSITORY_NOT_FOUND, type RepoAccess } from './repo-access.js';

/** Bounds what git-storage reads on every ref change (docs/decisions/branch-protection.md). */
export const MAX_RULES_PER_REPOSITORY = 100;

const ruleNotFound = (pattern: string) => notFound(`Branch protection not found: ${pattern}`);

type ProtectionDeps = Pick<AccountsDeps, 'protections'>;

/*
 * docs/decisions/branch-protection.md: the repository owner and site admins manage the rules;
 * anyone who can read the repository may read them, so a writer can learn why a push was refused.
 */

export async function listBranchProtections(deps: ProtectionDeps, access: RepoAccess | null): Promise<StoredProtection[]> {
  return deps.protections.list(readableRepositoryId(access));
}

export async function getBranchProtection(deps: ProtectionDeps, access: RepoAccess | null, pattern: string): Promise<StoredProtection> {
  const id = readableRepositoryId(access);
  const rule = await deps.protections.get(id, validateBranchPattern(pattern));
  if (!rule) throw ruleNotFound(pattern);
  return rule;
}

/** Creates or replaces the rule; `created` is true when there was none for this pattern. */
export async function putBranchProtection(deps: ProtectionDeps, access: RepoAccess | null, pattern: string, body: unknown): Promise<{ rule: StoredProtection; created: boolean }> {
  const id = manageableRepositoryId(access);
  const result = await deps.protections.put(id, parseProtectionRule(pattern, body), MAX_RULES_PER_REPOSITORY);
  if (!result) throw notFound(REPOSITORY_NOT_FOUND);
  return result;
}

/** As GitHub: deleting a rule that does not exist is 404. */
export async function deleteBranchProtection(deps: ProtectionDeps, access: RepoAccess | null, pattern: string): Promise<void> {
  const id = manageableRepositoryId(access);
  if (!(await deps.protections.remove(id, validateBranchPattern(pattern)))) throw ruleNotFound(pattern);
}

/** accounts.proto GetRefPolicy: NOT_FOUND for an unknown repository. */
export async function refPolicyOf(deps: ProtectionDeps, repositoryId: string): Promise<RefPolicy> {
  const policy = repositoryId ? await deps.protections.refPolicy(repositoryId) : null;
  if (!policy) throw notFound(REPOSITORY_NOT_FOUND);
  return policy;
}
