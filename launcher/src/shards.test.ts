import { describe, expect, it } from '@jest/globals';
import { extraShardNames, shardCount, shardDataDir, shardEnv } from './shards.js';

describe('launcher shards', () => {
  it('when nothing is asked, then one shard; the option wins over GITHOST_SHARDS', () => {
    expect([shardCount(undefined, undefined), shardCount(undefined, ''), shardCount(undefined, ' 3 '), shardCount(2, '5')]).toEqual([1, 1, 3, 2]);
  });

  it.each([['0'], ['17'], ['two'], ['1.5']])('when GITHOST_SHARDS is %j, then start-up fails naming it', (value) => {
    expect(() => shardCount(undefined, value)).toThrow(/GITHOST_SHARDS \(shards\) must be a whole number from 1 to 16/);
  });

  it('when three shards run, then the extra two are named after their position and live under DATA_DIR/shards', () => {
    expect(extraShardNames(3)).toEqual(['shard-1', 'shard-2']);
    expect(extraShardNames(1)).toEqual([]);
    expect([shardDataDir('/srv/data', 'default'), shardDataDir('/srv/data', 'shard-2')]).toEqual(['/srv/data', '/srv/data/shards/shard-2']);
  });

  it('when shards have addresses, then both shard lists name every one of them', () => {
    expect(
      shardEnv([
        { name: 'default', grpc: '127.0.0.1:1', http: 'http://127.0.0.1:2' },
        { name: 'shard-1', grpc: '127.0.0.1:3', http: 'http://127.0.0.1:4' },
      ]),
    ).toEqual({ GIT_STORAGE_SHARDS: 'default=127.0.0.1:1,shard-1=127.0.0.1:3', GIT_STORAGE_HTTP_SHARDS: 'default=http://127.0.0.1:2,shard-1=http://127.0.0.1:4' });
  });

  it('when git-storage serves no HTTP, then the HTTP list is empty so the gateway answers git with 503', () => {
    expect(shardEnv([{ name: 'default', grpc: '127.0.0.1:1' }])).toEqual({ GIT_STORAGE_SHARDS: 'default=127.0.0.1:1', GIT_STORAGE_HTTP_SHARDS: '' });
  });
});
