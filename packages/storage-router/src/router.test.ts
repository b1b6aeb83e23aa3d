import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { startGrpcServer, type GrpcListening } from '@githost/grpc';
import { createStorageClient } from '@githost/protos';
import { createStorageRouter } from './router.js';

const SECRET = 'router-test-internal-secret';

describe('routing calls to shards', () => {
  it('when a shard is asked for twice, then one client is made for it and reused', () => {
    const made: string[] = [];
    const router = createStorageRouter(
      new Map([
        ['default', 'a:1'],
        ['b', 'b:2'],
      ]),
      SECRET,
      {
        createClient: (address) => {
          made.push(address);
          return createStorageClient(address, SECRET);
        },
      },
    );
    const first = router.client('b');
    expect(router.client('b')).toBe(first);
    expect(router.client('default')).not.toBe(first);
    // Records written before shards existed may carry an empty name.
    expect(router.client('')).toBe(router.client('default'));
    expect(made).toEqual(['b:2', 'a:1']);
    expect(router.shards).toEqual(['default', 'b']);
    router.close();
  });

  it('when a shard is not configured, then the call fails as unavailable naming the shard and the known ones', () => {
    const router = createStorageRouter(new Map([['default', 'a:1']]), SECRET);
    let caught: unknown;
    try {
      router.client('shard-9');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect(caught).toMatchObject({ kind: 'unavailable', message: 'git-storage shard "shard-9" is not configured here (GIT_STORAGE_SHARDS names default)' });
  });
});

describe('readiness over shards', () => {
  let up: GrpcListening;
  let downAddress: string;
  beforeAll(async () => {
    up = await startGrpcServer(() => undefined, 0, '127.0.0.1', [], SECRET);
    const gone = await startGrpcServer(() => undefined, 0, '127.0.0.1', [], SECRET);
    downAddress = `127.0.0.1:${gone.port}`;
    await gone.close(0);
  });
  afterAll(() => up.close(0));

  it('when every shard is down, then the router is not ready', async () => {
    const router = createStorageRouter(new Map([['default', downAddress]]), SECRET);
    expect(await router.ready(300)).toBe(false);
    router.close();
  });

  it('when one shard is down and another up, then the router is still ready', async () => {
    const router = createStorageRouter(
      new Map([
        ['default', downAddress],
        ['b', `127.0.0.1:${up.port}`],
      ]),
      SECRET,
    );
    expect(await router.ready(2000)).toBe(true);
    router.close();
  });
});
