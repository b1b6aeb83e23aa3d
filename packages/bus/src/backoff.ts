/**
 * Exponential backoff with "equal jitter" (half fixed, half random), capped: replicas that lost
 * the broker at the same moment do not all reconnect in lock-step, and a long outage settles at
 * `maxMs` instead of growing without bound.
 */
export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
}

export function backoffDelay(attempt: number, { initialMs = 100, maxMs = 10_000 }: BackoffOptions = {}): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
