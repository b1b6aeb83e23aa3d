import type { IncomingMessage } from 'node:http';
import { unavailable } from '@githost/errors';
import type { ShardMap } from '@githost/storage-router';

/**
 * The proxy target of one git transport request: the smart-HTTP address of the shard holding the
 * repository, as its record names it (docs/operating.md#adding-a-shard). `shardOf` gives the shard accounts answered
 * for this very request when the gateway admitted it.
 */
export function gitStorageTarget(shards: ShardMap, shardOf: (req: IncomingMessage) => string): (req: IncomingMessage) => string {
  return (req) => {
    const shard = shardOf(req);
    const target = shards.get(shard);
    // A record naming a shard this gateway cannot reach is a deployment fault: 503, never another shard.
    if (!target) throw unavailable(`git-storage shard "${shard}" has no GIT_STORAGE_HTTP_SHARDS entry`);
    return target;
  };
}
