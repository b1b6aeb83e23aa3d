import { unavailable } from '@githost/errors';
import { waitForReady } from '@githost/grpc';
import { createStorageClient, type StorageServiceClient } from '@githost/protos';
import { DEFAULT_SHARD, type ShardMap } from './shard-map.js';

/**
 * Which git-storage holds a repository is part of its record (Gitaly's storage name); every call
 * for that repository goes to that shard's client. Clients are made on first use and kept: a
 * grpc-js channel reconnects by itself, so one per shard serves the whole process.
 */
export interface StorageRouter {
  /** Configured shard names, in configuration order. */
  readonly shards: readonly string[];
  /** The client for `shard` (empty means `default`, what records made before shards carry). */
  client(shard: string): StorageServiceClient;
  /** For /readyz: at least one shard answers, so the service can do useful work; one shard
   *  down must not take every replica out of rotation for repositories on the others. */
  ready(timeoutMs?: number): Promise<boolean>;
  close(): void;
}

export interface StorageRouterOptions {
  /** For tests: how a client is made for an address. */
  createClient?: (address: string) => StorageServiceClient;
}

/** Clients sign every call with `internalSecret` (GITHOST_INTERNAL_SECRET). */
export function createStorageRouter(shards: ShardMap, internalSecret: string, opts: StorageRouterOptions = {}): StorageRouter {
  const make = opts.createClient ?? ((address: string) => createStorageClient(address, internalSecret));
  const clients = new Map<string, StorageServiceClient>();
  const client = (shard: string): StorageServiceClient => {
    const name = shard || DEFAULT_SHARD;
    let c = clients.get(name);
    if (c) return c;
    const address = shards.get(name);
    if (address === undefined) {
      throw unavailable(`git-storage shard "${name}" is not configured here (GIT_STORAGE_SHARDS names ${[...shards.keys()].join(', ') || 'none'})`);
    }
    c = make(address);
    clients.set(name, c);
    return c;
  };
  return {
    shards: [...shards.keys()],
    client,
    async ready(timeoutMs = 1000) {
      const answers = await Promise.all([...shards.keys()].map((name) => waitForReady(client(name), timeoutMs)));
      return answers.some(Boolean);
    },
    close() {
      for (const c of clients.values()) c.close();
      clients.clear();
    },
  };
}
