import { describe, expect, it } from '@jest/globals';
import { deliveryIdFor } from './delivery-id.js';

describe('deliveryIdFor', () => {
  const hook = '0b6f2f5e-0c47-4a43-9d0e-7c1f7f0d2a11';

  it('when the same webhook and event are given again, then the id is the same', () => {
    expect(deliveryIdFor(hook, 'evt-1')).toBe(deliveryIdFor(hook, 'evt-1'));
  });

  it('when the event or the webhook differs, then the id differs', () => {
    const other = '1c7a3a6f-1d58-4b54-8e1f-8d2a8a1e3b22';
    const ids = new Set([deliveryIdFor(hook, 'evt-1'), deliveryIdFor(hook, 'evt-2'), deliveryIdFor(other, 'evt-1')]);
    expect(ids.size).toBe(3);
  });

  it('then the id is a name-based (version 5) uuid', () => {
    expect(deliveryIdFor(hook, 'evt-1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
