import { describe, expect, it } from '@jest/globals';
import { gitBudget } from './git-budget.js';
import type { SshCaller } from './commands/index.js';

const alice: SshCaller = { keyId: '1', kind: 'user', user: { id: 'u1', username: 'alice', email: '', is_admin: false } };
const aliceLaptop: SshCaller = { ...alice, keyId: '2' };
const deploy: SshCaller = { keyId: '3', kind: 'deploy_key' };

describe('gitBudget (docs/decisions/ssh-server.md#limits)', () => {
  it('when a user spends the budget, then every key of hers is refused until the next minute; others are not', async () => {
    let now = 0;
    const within = gitBudget(2, () => now);
    expect([await within(alice), await within(aliceLaptop), await within(alice)]).toEqual([true, true, false]);
    expect(await within(deploy)).toBe(true);
    now = 60_000;
    expect(await within(alice)).toBe(true);
  });

  it('when the budget is 0, then there is no limit', async () => {
    const within = gitBudget(0);
    for (let i = 0; i < 5; i++) expect(await within(alice)).toBe(true);
  });
});
