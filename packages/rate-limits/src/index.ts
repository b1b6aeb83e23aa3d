export { BUDGETS, WINDOW_MS, gitBudgetKey, tokenKey, type BudgetName, type GitCaller } from './budgets.js';
export { createLimitStores, DEFAULT_PREFIX, DEFAULT_RETRY_MS, DEFAULT_TIMEOUT_MS, type LimitStores, type LimitStoreSettings } from './stores.js';
