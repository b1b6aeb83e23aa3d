import { describe, expect, it } from '@jest/globals';
import { chooseShard } from './placement.js';

describe('placing a new repository on a shard', () => {
  const shards = ['default', 'shard-1', 'shard-2'];

  it('when one shard holds fewer repositories than the others, then it is chosen', () => {
    expect(chooseShard({ shards }, new Map([['default', 4], ['shard-1', 2], ['shard-2', 3]]))).toBe('shard-1');
  });

  it('when a shard holds none yet (no row names it), then it is chosen first', () => {
    expect(chooseShard({ shards }, new Map([['default', 1], ['shard-1', 1]]))).toBe('shard-2');
  });

  it('when shards tie, then the one listed first is chosen', () => {
    expect(chooseShard({ shards }, new Map([['default', 2], ['shard-1', 1], ['shard-2', 1]]))).toBe('shard-1');
    expect(chooseShard({ shards }, new Map())).toBe('default');
  });

  it('when a default shard is configured, then it is chosen whatever the counts', () => {
    expect(chooseShard({ shards, defaultShard: 'shard-2' }, new Map([['shard-2', 9]]))).toBe('shard-2');
  });

  it('when repositories sit on a shard no longer configured, then they do not count and it is never chosen', () => {
    expect(chooseShard({ shards: ['a', 'b'] }, new Map([['gone', 0], ['a', 1], ['b', 2]]))).toBe('a');
  });
});
