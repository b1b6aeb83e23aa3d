import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { BUDGETS } from './budgets.js';
import { createLimitStores, type LimitStores } from './stores.js';

describe('createLimitStores without REDIS_URL (docs/decisions/shared-rate-limits.md)', () => {
  let stores: LimitStores | undefined;
  afterEach(async () => {
    await stores?.close();
    jest.useRealTimers();
  });

  it('when a key spends its budget, then it is refused until its window ends, and other keys and budgets are apart', async () => {
    jest.useFakeTimers({ now: 1_000 });
    stores = createLimitStores({ service: 'test' });
    const spent = [];
    for (let i = 0; i < 3; i++) spent.push(await stores.spend(BUDGETS.git, 'user:a', 2));
    expect(spent).toEqual([true, true, false]);
    expect([await stores.spend(BUDGETS.git, 'user:b', 2), await stores.spend(BUDGETS.apiToken, 'user:a', 2)]).toEqual([true, true]);
    jest.setSystemTime(61_000);
    expect(await stores.spend(BUDGETS.git, 'user:a', 2)).toBe(true);
    expect([stores.shared, stores.sharedNow]).toEqual([false, false]);
  });

  it('when asked for a budget twice, then the same counter answers, and a limit of 0 spends nothing', async () => {
    stores = createLimitStores({ service: 'test' });
    expect(stores.store(BUDGETS.git)).toBe(stores.store(BUDGETS.git));
    expect(stores.store(BUDGETS.git).localKeys).toBe(true);
    for (let i = 0; i < 3; i++) expect(await stores.spend(BUDGETS.git, 'user:a', 0)).toBe(true);
    expect(await stores.store(BUDGETS.git).get!('user:a')).toBeUndefined();
  });
});
