/**
 * Where a new repository goes (docs/operating.md#adding-a-shard, as Gitaly places repositories): the configured
 * default shard when there is one, else the shard holding the fewest repositories, ties going to
 * the shard listed first. Counts come from accounts' own table, which records every repository's
 * shard; two creations at the same moment may pick the same shard, which only evens out later.
 */
export interface ShardPlacement {
  /** Shards new repositories may go to, in configuration order. */
  shards: readonly string[];
  /** GIT_STORAGE_DEFAULT_SHARD: every new repository goes here. */
  defaultShard?: string;
}

export function chooseShard(placement: ShardPlacement, repositoriesPerShard: ReadonlyMap<string, number>): string {
  if (placement.defaultShard) return placement.defaultShard;
  let best: string | undefined;
  let fewest = Infinity;
  for (const shard of placement.shards) {
    const count = repositoriesPerShard.get(shard) ?? 0;
    if (count < fewest) {
      best = shard;
      fewest = count;
    }
  }
  if (best === undefined) throw new Error('no git-storage shard configured');
  return best;
}
