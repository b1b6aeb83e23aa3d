import { describe, expect, it } from '@jest/globals';
import { lfsDirect } from './lfs-direct.js';

describe('lfsDirect', () => {
  it('when direct transfers are off, then every shard gets an empty LFS_DIRECT_URL, whatever the environment held, and no URL is listed', async () => {
    const direct = lfsDirect(false, { url: 'https://lfs.example.com', port: '8443' }, 'http://localhost:3000');
    expect([await direct.shardEnv('default'), await direct.shardEnv('shard-1'), direct.urls]).toEqual([{ LFS_DIRECT_URL: '' }, { LFS_DIRECT_URL: '' }, []]);
  });

  it('when they are on, then the default shard takes the given URL and port, and another shard a free port on the public URL\'s host', async () => {
    const direct = lfsDirect(true, { url: 'https://lfs.example.com/a', port: '8443', bindHost: '127.0.0.1' }, 'https://git.example.com:3000');
    expect(await direct.shardEnv('default')).toEqual({ LFS_DIRECT_URL: 'https://lfs.example.com/a', LFS_DIRECT_PORT: '8443', LFS_DIRECT_BIND_HOST: '127.0.0.1' });
    const other = await direct.shardEnv('git-storage shard-1');
    expect(other.LFS_DIRECT_URL).toBe(`http://git.example.com:${other.LFS_DIRECT_PORT}`);
    expect(Number(other.LFS_DIRECT_PORT)).toBeGreaterThan(0);
    expect(direct.urls).toEqual(['https://lfs.example.com/a', other.LFS_DIRECT_URL]);
  });

  it('when LFS_DIRECT_PORT is not a port, then the start stops naming it', async () => {
    await expect(lfsDirect(true, { port: 'http' }, 'http://localhost:3000').shardEnv('default')).rejects.toThrow(/LFS_DIRECT_PORT/);
  });
});
