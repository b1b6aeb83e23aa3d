import { BUDGETS, gitBudgetKey, type LimitStores } from '@githost/rate-limits';
import type { SshCaller } from './commands/index.js';

/**
 * The per-caller git budget (docs/operating.md#rate-limits-gateway): SSH git commands per minute
 * per user (or deploy key), with the number the gateway's git budget takes
 * (GITHOST_GIT_RATE_LIMIT_PER_MINUTE), spent on the gateway's own counter with the gateway's key
 * (gitBudgetKey): with REDIS_URL a user's pushes and clones over HTTP and SSH spend one budget
 * (docs/decisions/shared-rate-limits.md#one-git-budget); without it, this process counts its own.
 * 0 turns it off.
 */
export function gitBudget(perMinute: number, stores: LimitStores) {
  return (caller: SshCaller): Promise<boolean> =>
    stores.spend(BUDGETS.git, gitBudgetKey(caller.kind === 'user' && caller.user ? { userId: caller.user.id } : { deployKeyId: caller.keyId }), perMinute);
}
