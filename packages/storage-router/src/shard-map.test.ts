import { describe, expect, it } from '@jest/globals';
import { loadConfig, z } from '@githost/config';
import { grpcShardEnv, grpcShardsOf, httpShardsOf, requireGrpcShards, shardListEnv } from './config-env.js';
import { parseShardList } from './shard-map.js';

describe('parsing a shard list', () => {
  it('when gRPC shards are listed, then each name maps to its host:port in the order given', () => {
    const shards = parseShardList(' default=git-storage-0.git-storage:3102 , shard-1=10.0.0.7:3102,', 'grpc');
    expect([...shards]).toEqual([
      ['default', 'git-storage-0.git-storage:3102'],
      ['shard-1', '10.0.0.7:3102'],
    ]);
  });

  it('when HTTP shards are listed, then each URL is kept as its origin', () => {
    expect([...parseShardList('default=http://a:3101/,b=https://b.example:443', 'http')]).toEqual([
      ['default', 'http://a:3101'],
      ['b', 'https://b.example'],
    ]);
  });

  it.each([
    ['', 'grpc', /expected name=address/],
    ['default', 'grpc', /"default": expected name=address/],
    ['Default=a:1', 'grpc', /"Default": a shard name/],
    ['a=x:1,a=y:2', 'grpc', /shard "a" is listed twice/],
    ['a=host', 'grpc', /shard "a": expected host:port, got "host"/],
    ['a=host:99999', 'grpc', /expected host:port/],
    ['a=http://h:1', 'grpc', /expected host:port/],
    ['a=h:1', 'http', /shard "a": expected an http\(s\) URL/],
    ['a=ftp://h:1', 'http', /expected an http\(s\) URL without/],
    ['a=http://h:1/base', 'http', /must have no path/],
  ] as const)('when the list is %j (%s), then it is refused naming the problem', (value, kind, message) => {
    expect(() => parseShardList(value, kind)).toThrow(message);
  });
});

describe('shard variables in a service config', () => {
  const schema = requireGrpcShards(z.object({ HTTP_PORT: z.coerce.number().int(), ...grpcShardEnv })).transform((e) => ({ shards: grpcShardsOf(e) }));
  const load = (env: Record<string, string>) => loadConfig('svc', schema, env);

  it('when only GIT_STORAGE_GRPC_ADDR is set, then it is the one shard named default', () => {
    expect([...load({ HTTP_PORT: '1', GIT_STORAGE_GRPC_ADDR: 'storage:3102' }).shards]).toEqual([['default', 'storage:3102']]);
  });

  it('when GIT_STORAGE_SHARDS is set, then it wins over GIT_STORAGE_GRPC_ADDR', () => {
    expect([...load({ HTTP_PORT: '1', GIT_STORAGE_GRPC_ADDR: 'old:1', GIT_STORAGE_SHARDS: 'default=a:1,b=b:2' }).shards]).toEqual([
      ['default', 'a:1'],
      ['b', 'b:2'],
    ]);
  });

  it('when neither is set and another variable is wrong too, then start-up names both', () => {
    expect(() => load({ HTTP_PORT: 'x' })).toThrow(/HTTP_PORT[\s\S]*GIT_STORAGE_GRPC_ADDR: required \(host:port\) unless GIT_STORAGE_SHARDS is set/);
  });

  it('when GIT_STORAGE_SHARDS is malformed, then start-up names the variable and the entry', () => {
    expect(() => load({ HTTP_PORT: '1', GIT_STORAGE_SHARDS: 'default=nohost' })).toThrow(/GIT_STORAGE_SHARDS: shard "default": expected host:port, got "nohost"/);
  });

  it('when HTTP shards are absent, then GIT_STORAGE_HTTP_URL is the default shard, and with neither there are none', () => {
    const http = z.object({ GIT_STORAGE_HTTP_SHARDS: shardListEnv('http') });
    expect([...httpShardsOf({ ...http.parse({}), GIT_STORAGE_HTTP_URL: 'http://s:3101/' })]).toEqual([['default', 'http://s:3101']]);
    expect(httpShardsOf({}).size).toBe(0);
    expect([...httpShardsOf(http.parse({ GIT_STORAGE_HTTP_SHARDS: 'x=http://x:1' }))]).toEqual([['x', 'http://x:1']]);
  });
});
