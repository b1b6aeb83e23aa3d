import { describe, expect, it } from '@jest/globals';
import { afterDelivery } from './webhook-health.js';

describe('afterDelivery', () => {
  it('when a delivery succeeds, then the failure streak resets', () => {
    expect(afterDelivery({ consecutive_failures: 7, is_active: true }, true)).toEqual({ consecutive_failures: 0, is_active: true });
  });

  it('when the 19th delivery in a row fails, then the webhook stays active', () => {
    expect(afterDelivery({ consecutive_failures: 18, is_active: true }, false)).toEqual({ consecutive_failures: 19, is_active: true });
  });

  it('when the 20th delivery in a row fails, then the webhook is deactivated', () => {
    expect(afterDelivery({ consecutive_failures: 19, is_active: true }, false)).toEqual({ consecutive_failures: 20, is_active: false });
  });

  it('when an inactive webhook delivers again, then it stays inactive', () => {
    expect(afterDelivery({ consecutive_failures: 25, is_active: false }, true)).toEqual({ consecutive_failures: 0, is_active: false });
  });
});
