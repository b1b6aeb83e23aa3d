/**
 * A webhook whose deliveries have failed this many times in a row is switched off (CONTRACT §7), so a
 * receiver that is gone for good stops collecting work; the flag shows in the webhook list.
 */
export const DEACTIVATE_AFTER_CONSECUTIVE_FAILURES = 20;

export interface WebhookHealth {
  consecutive_failures: number;
  is_active: boolean;
}

/** The webhook's health after one delivery finished (delivered or finally failed). */
export function afterDelivery(current: WebhookHealth, delivered: boolean): WebhookHealth {
  if (delivered) return { consecutive_failures: 0, is_active: current.is_active };
  const failures = current.consecutive_failures + 1;
  return { consecutive_failures: failures, is_active: current.is_active && failures < DEACTIVATE_AFTER_CONSECUTIVE_FAILURES };
}

export function sameHealth(a: WebhookHealth, b: WebhookHealth): boolean {
  return a.consecutive_failures === b.consecutive_failures && a.is_active === b.is_active;
}
