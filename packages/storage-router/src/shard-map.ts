/**
 * Shard lists as operators write them: `name=address,name=address`. gRPC addresses are
 * `host:port` (GIT_STORAGE_SHARDS), smart-HTTP ones `http(s)://host:port` (GIT_STORAGE_HTTP_SHARDS).
 * A bad list stops the process at start-up, naming the entry, rather than failing one request later.
 */
export type ShardKind = 'grpc' | 'http';

/** name -> address, in the order the operator listed them. */
export type ShardMap = ReadonlyMap<string, string>;

/** The shard every repository lived on before there were more (accounts' column default). */
export const DEFAULT_SHARD = 'default';

/** Shard names are stored in repository records and logged: short, lowercase, no separators. */
export const SHARD_NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/;

const GRPC_ADDRESS = /^[^\s:=,/]+:\d{1,5}$/;

export class ShardListError extends Error {
  override name = 'ShardListError';
}

export function parseShardList(value: string, kind: ShardKind): ShardMap {
  const shards = new Map<string, string>();
  const entries = value.split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (entries.length === 0) throw new ShardListError('expected name=address[,name=address...]');
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq < 0) throw new ShardListError(`"${entry}": expected name=address`);
    const name = entry.slice(0, eq).trim();
    const address = entry.slice(eq + 1).trim();
    if (!SHARD_NAME.test(name)) throw new ShardListError(`"${name}": a shard name is lowercase letters, digits, '.', '_' or '-' (at most 63)`);
    if (shards.has(name)) throw new ShardListError(`shard "${name}" is listed twice`);
    shards.set(name, kind === 'grpc' ? grpcAddress(name, address) : httpAddress(name, address));
  }
  return shards;
}

function grpcAddress(name: string, address: string): string {
  if (!GRPC_ADDRESS.test(address) || Number(address.slice(address.lastIndexOf(':') + 1)) > 65535) {
    throw new ShardListError(`shard "${name}": expected host:port, got "${address}"`);
  }
  return address;
}

function httpAddress(name: string, address: string): string {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new ShardListError(`shard "${name}": expected an http(s) URL, got "${address}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username) {
    throw new ShardListError(`shard "${name}": expected an http(s) URL without query or credentials, got "${address}"`);
  }
  // The gateway forwards the original path unchanged, so a base path would be dropped silently.
  if (url.pathname !== '/') throw new ShardListError(`shard "${name}": the URL must have no path, got "${address}"`);
  return url.origin;
}

/** The single-address configuration of before shards, read as one shard named `default`. */
export function singleShard(address: string): ShardMap {
  return new Map([[DEFAULT_SHARD, address]]);
}
