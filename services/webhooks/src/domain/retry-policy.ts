/**
 * What one delivery attempt ended with, and what happens next (CONTRACT §7, Gitea's deliver.go):
 * 2xx succeeds; network errors, timeouts, 408, 429 and 5xx are retried with exponential backoff
 * and jitter until the attempts run out; any other answer, and a target the SSRF guard refused,
 * fails at once.
 */
export type AttemptOutcome =
  | { kind: 'response'; status: number; retryAfterSeconds?: number }
  | { kind: 'network'; error: string }
  | { kind: 'refused'; error: string };

export type Decision = { next: 'delivered' } | { next: 'failed' } | { next: 'retry'; delayMs: number };

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  /** Ceiling for one wait, so a long outage still gets tried again within the hour. */
  maxDelayMs?: number;
}

const DEFAULT_MAX_DELAY_MS = 60 * 60_000;

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * `attempt` is the 1-based number of the attempt that just ended (within the current round:
 * a redelivery starts a new round with the full budget).
 */
export function decideNext(outcome: AttemptOutcome, attempt: number, policy: RetryPolicy, random: () => number = Math.random): Decision {
  if (outcome.kind === 'response' && isSuccessStatus(outcome.status)) return { next: 'delivered' };
  const retryable = outcome.kind === 'network' || (outcome.kind === 'response' && isRetryableStatus(outcome.status));
  if (!retryable || attempt >= policy.maxAttempts) return { next: 'failed' };
  let delayMs = backoffDelay(attempt, policy, random);
  // A receiver that says when to come back is believed, within the same ceiling.
  if (outcome.kind === 'response' && outcome.retryAfterSeconds !== undefined) {
    delayMs = Math.max(delayMs, Math.min(outcome.retryAfterSeconds * 1000, policy.maxDelayMs ?? DEFAULT_MAX_DELAY_MS));
  }
  return { next: 'retry', delayMs };
}

/**
 * base * 2^(attempt-1), "equal jitter": half fixed, half random, so retries of many deliveries
 * that failed together spread out instead of hitting the receiver again in one burst.
 */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const cap = policy.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const exp = Math.min(cap, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}

/** `Retry-After` in seconds (the HTTP-date form is rare from webhook receivers and ignored). */
export function parseRetryAfter(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d{1,7}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
