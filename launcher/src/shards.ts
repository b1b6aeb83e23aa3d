import path from 'node:path';
import { ConfigError } from '@githost/config';
import type { Ports } from './processes.js';

/**
 * `shards` git-storage services. The first is the one the
 * start stages already run, shard `default` on DATA_DIR itself, so data from before shards keeps
 * working; the others are `shard-1`, `shard-2`, ... on `DATA_DIR/shards/<name>`.
 */
export const MAX_SHARDS = 16;

export function shardCount(option: number | undefined, envValue: string | undefined): number {
  return countSetting(option, envValue, 'GITHOST_SHARDS (shards)', MAX_SHARDS);
}

/** A count from 1 to `max` for the launcher: the option, else the environment variable, else 1. */
export function countSetting(option: number | undefined, envValue: string | undefined, name: string, max: number): number {
  const raw = option ?? (envValue === undefined || envValue.trim() === '' ? 1 : Number(envValue.trim()));
  if (!Number.isInteger(raw) || raw < 1 || raw > max) throw new ConfigError(`${name} must be a whole number from 1 to ${max}, got ${JSON.stringify(option ?? envValue)}`);
  return raw;
}

export function extraShardNames(count: number): string[] {
  return Array.from({ length: count - 1 }, (_, i) => `shard-${i + 1}`);
}

export function shardDataDir(dataDir: string, name: string): string {
  return name === 'default' ? dataDir : path.join(dataDir, 'shards', name);
}

interface ShardAddresses {
  name: string;
  grpc: string;
  http?: string;
}

/** The shard lists every other service reads; set even for one shard, so a GIT_STORAGE_SHARDS
 *  left in the caller's environment cannot point the services somewhere else. */
export function shardEnv(shards: ShardAddresses[]): Record<string, string> {
  const withHttp = shards.filter((s) => s.http);
  return {
    GIT_STORAGE_SHARDS: shards.map((s) => `${s.name}=${s.grpc}`).join(','),
    // Empty (no git-storage HTTP at all) falls back to GIT_STORAGE_HTTP_URL, i.e. 503 for git.
    GIT_STORAGE_HTTP_SHARDS: withHttp.length === shards.length ? shards.map((s) => `${s.name}=${s.http}`).join(',') : '',
  };
}

/**
 * Starts the extra shards once the default git-storage runs (its addresses are in `env`), one
 * after the other through `start` (in this process or as child processes), and returns the
 * variables that wire all of them into the later services.
 */
export async function startExtraShards(count: number, env: NodeJS.ProcessEnv, start: (name: string, env: NodeJS.ProcessEnv) => Promise<Ports>): Promise<Record<string, string>> {
  const shards: ShardAddresses[] = [{ name: 'default', grpc: env.GIT_STORAGE_GRPC_ADDR as string, http: env.GIT_STORAGE_HTTP_URL }];
  for (const name of extraShardNames(count)) {
    const ports = await start(`git-storage ${name}`, { ...env, DATA_DIR: shardDataDir(env.DATA_DIR as string, name) });
    shards.push({ name, grpc: `127.0.0.1:${ports.grpcPort}`, http: ports.httpPort ? `http://127.0.0.1:${ports.httpPort}` : undefined });
  }
  return shardEnv(shards);
}
