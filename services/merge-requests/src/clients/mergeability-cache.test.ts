import { describe, expect, it } from '@jest/globals';
import { FakeGit } from '../../test/support/in-memory.js';
import { MergeabilityCache } from './mergeability-cache.js';

class CountingGit extends FakeGit {
  checks = 0;
  override async checkMerge() {
    this.checks++;
    return super.checkMerge();
  }
}

describe('MergeabilityCache', () => {
  it('when the same pair of tips is checked twice, then git-storage is asked once', async () => {
    const git = new CountingGit();
    git.conflicts = ['a.txt'];
    const cached = new MergeabilityCache().wrap(git);
    expect(await cached.checkMerge('r', 'a', 'b')).toEqual({ clean: false, conflicts: ['a.txt'] });
    expect(await cached.checkMerge('r', 'a', 'b')).toEqual({ clean: false, conflicts: ['a.txt'] });
    expect(git.checks).toBe(1);
  });

  it('when a tip or the repository differs, then it is a different question', async () => {
    const git = new CountingGit();
    const cached = new MergeabilityCache().wrap(git);
    await cached.checkMerge('r', 'a', 'b');
    await cached.checkMerge('r', 'a', 'c');
    await cached.checkMerge('s', 'a', 'b');
    expect(git.checks).toBe(3);
  });

  it('when the cache is full, then the least recently used pair is evicted', async () => {
    const git = new CountingGit();
    const cached = new MergeabilityCache(2).wrap(git);
    await cached.checkMerge('r', 'a', '1');
    await cached.checkMerge('r', 'a', '2');
    await cached.checkMerge('r', 'a', '1'); // 1 is now the most recent
    await cached.checkMerge('r', 'a', '3'); // evicts 2
    await cached.checkMerge('r', 'a', '1');
    expect(git.checks).toBe(3);
    await cached.checkMerge('r', 'a', '2');
    expect(git.checks).toBe(4);
  });

  it('when two wrapped ports share the cache, then the answer is shared (one per request in the service)', async () => {
    const git = new CountingGit();
    const cache = new MergeabilityCache();
    await cache.wrap(git).checkMerge('r', 'a', 'b');
    await cache.wrap(git).checkMerge('r', 'a', 'b');
    expect(git.checks).toBe(1);
  });

  it('when other methods are called, then they reach the wrapped port', async () => {
    const git = new CountingGit();
    git.branches.set('main', 'x');
    expect(await new MergeabilityCache().wrap(git).resolveBranch('r', 'main')).toBe('x');
  });
});
