export { BUDGETS, WINDOW_MS, gitBudgetKey, tokenKey, type BudgetName, type GitCaller } from './budgets.js';
export { createLimitStores, DEFAULT_PREFIX, DEFAULT_RETRY_MS, DEFAULT_TIMEOUT_MS, LEASE_IDLE_MS, leaseSize, MAX_LEASE, type LimitStores, type LimitStoreSettings } from './stores.js';
