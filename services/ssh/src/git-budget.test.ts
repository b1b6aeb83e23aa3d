import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { createLimitStores, type LimitStores } from '@githost/rate-limits';
import { gitBudget } from './git-budget.js';
import type { SshCaller } from './commands/index.js';

const alice: SshCaller = { keyId: '1', kind: 'user', user: { id: 'u1', username: 'alice', email: '', is_admin: false } };
const aliceLaptop: SshCaller = { ...alice, keyId: '2' };
const deploy: SshCaller = { keyId: '3', kind: 'deploy_key' };

describe('gitBudget (docs/decisions/ssh-server.md#limits)', () => {
  let stores: LimitStores | undefined;
  afterEach(async () => {
    await stores?.close();
    jest.useRealTimers();
  });

  it('when a user spends the budget, then every key of hers is refused until the next minute; others are not', async () => {
    jest.useFakeTimers({ now: 0 });
    stores = createLimitStores({ service: 'ssh' });
    const within = gitBudget(2, stores);
    expect([await within(alice), await within(aliceLaptop), await within(alice)]).toEqual([true, true, false]);
    expect(await within(deploy)).toBe(true);
    jest.setSystemTime(60_000);
    expect(await within(alice)).toBe(true);
  });

  it('when the budget is 0, then there is no limit', async () => {
    stores = createLimitStores({ service: 'ssh' });
    const within = gitBudget(0, stores);
    for (let i = 0; i < 5; i++) expect(await within(alice)).toBe(true);
  });
});
