import { describe, expect, it } from '@jest/globals';
import { gitBudgetKey, tokenKey } from './budgets.js';

describe('gitBudgetKey (docs/decisions/shared-rate-limits.md#one-git-budget)', () => {
  it('when a user pushes with a token or a key, then both count under the user', () => {
    expect(gitBudgetKey({ userId: 'u-1' })).toBe('user:u-1');
  });

  it('when a deploy key or an account-less token pushes, then each has a key of its own and no token is kept in it', () => {
    expect(gitBudgetKey({ deployKeyId: '7' })).toBe('deploy-key:7');
    const key = gitBudgetKey({ token: 'secret-admin-token' });
    expect([key, key.includes('secret')]).toEqual([tokenKey('secret-admin-token'), false]);
    expect(key).toMatch(/^token:[0-9a-f]{64}$/);
  });
});
