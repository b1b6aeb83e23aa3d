/** seed §4 browsing rule 5 / §8. */
export const DEFAULT_COMMIT_LIMIT = 20;
export const MAX_COMMIT_LIMIT = 100;

/**
 * seed §4 browsing rule 5 with CONTRACT §9: a decimal integer, capped at 100; missing, below 1
 * or not an integer (`abc`, `5.5`, `1e9`, a repeated parameter) means the default.
 */
export function parseLimit(raw: unknown): number {
  if (typeof raw !== 'string' || !/^\+?\d+$/.test(raw.trim())) return DEFAULT_COMMIT_LIMIT;
  const n = Number(raw.trim());
  if (n < 1) return DEFAULT_COMMIT_LIMIT;
  return Math.min(n, MAX_COMMIT_LIMIT);
}
