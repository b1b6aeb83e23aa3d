import { describe, expect, it } from '@jest/globals';
import { giteaIdOf, pullRequestKey, repositoryKey } from './index.js';

describe('giteaIdOf', () => {
  it('when asked twice for the same object, then the same positive safe integer; another kind or key, another id', () => {
    const id = giteaIdOf('repository', repositoryKey('0b7c1f5e-8d1a-4c55-9c64-3f8f2f6f1a10'));
    expect(id).toBe(giteaIdOf('repository', '0b7c1f5e-8d1a-4c55-9c64-3f8f2f6f1a10'));
    expect(Number.isSafeInteger(id) && id > 0 && id <= 2 ** 48).toBe(true);
    expect(giteaIdOf('user', '0b7c1f5e-8d1a-4c55-9c64-3f8f2f6f1a10')).not.toBe(id);
    expect(giteaIdOf('pull_request', pullRequestKey('r', 1))).not.toBe(giteaIdOf('pull_request', pullRequestKey('r', 2)));
  });

  it('when the key is a known one, then the id is the one every release gives it (derived, never stored)', () => {
    // Pinned: a change of the derivation would change every id a tool has stored.
    expect([giteaIdOf('user', 'alice'), giteaIdOf('repository', '0b7c1f5e-8d1a-4c55-9c64-3f8f2f6f1a10')]).toEqual([20016365948943, 180020453709686]);
    expect(pullRequestKey('r', 3)).toBe('r#3');
  });
});
