import type { IncomingMessage } from 'node:http';
import { unavailable } from '@githost/errors';
import { decodeIdentity } from '@githost/identity';
import { DEFAULT_SHARD, type ShardMap } from '@githost/storage-router';

/**
 * The proxy target of one git transport request: the smart-HTTP address of the shard holding the
 * repository, as its record names it (issue 6 part 3). Read from the identity this gateway just
 * signed, so the shard is the one accounts answered for this very request.
 */
export function gitStorageTarget(shards: ShardMap, secret: string): (req: IncomingMessage) => string {
  return (req) => {
    const shard = decodeIdentity(req.headers, secret).repo?.shard || DEFAULT_SHARD;
    const target = shards.get(shard);
    // A record naming a shard this gateway cannot reach is a deployment fault: 503, never another shard.
    if (!target) throw unavailable(`git-storage shard "${shard}" has no GIT_STORAGE_HTTP_SHARDS entry`);
    return target;
  };
}
