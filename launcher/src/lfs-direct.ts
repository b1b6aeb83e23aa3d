import { ConfigError } from '@githost/config';
import { bindPublicPort, boundPort } from './public-port.js';

/**
 * GITHOST_LFS_DIRECT (docs/decisions/lfs.md#direct-transfers): each git-storage shard serves LFS
 * object bytes on a listener of its own, and batches point signed-in clients there instead of at
 * the gateway. Off by default: the gateway's path is the one every deployment has.
 */
export interface LfsDirect {
  /** The shard's LFS_DIRECT_URL, LFS_DIRECT_PORT and LFS_DIRECT_BIND_HOST; LFS_DIRECT_URL empty
   *  (off) when direct transfers are off, so one left in the caller's environment does nothing. */
  shardEnv(shard: string): Promise<Record<string, string>>;
  /** Each shard's direct URL, in start order (empty when off). */
  readonly urls: string[];
}

/** What the operator set for the default shard (LFS_DIRECT_URL, LFS_DIRECT_PORT) and for every
 *  shard (LFS_DIRECT_BIND_HOST), blanks as unset. */
export interface LfsDirectSettings {
  url?: string;
  port?: string;
  bindHost?: string;
}

export function lfsDirect(enabled: boolean, given: LfsDirectSettings, publicUrl: string): LfsDirect {
  const urls: string[] = [];
  // Public like the gateway's port (bindPublicPort), not loopback like the internal ones.
  const host = given.bindHost ?? '0.0.0.0';
  return {
    urls,
    async shardEnv(shard): Promise<Record<string, string>> {
      if (!enabled) return { LFS_DIRECT_URL: '' };
      // The default shard may be given its port and URL (a proxy in front of it); every other
      // shard, and the default one without them, takes a free port on the public URL's host.
      const own = shard === 'default' ? given.port : undefined;
      const port = own !== undefined ? Number(own) : await freePort(host);
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConfigError(`LFS_DIRECT_PORT must be a port number, got ${JSON.stringify(own)}`);
      const url = (shard === 'default' ? given.url : undefined) ?? `http://${new URL(publicUrl).hostname}:${port}`;
      urls.push(url);
      return { LFS_DIRECT_URL: url, LFS_DIRECT_PORT: String(port), LFS_DIRECT_BIND_HOST: host };
    },
  };
}

/** A port free a moment ago on `host`: the URL must name it before the shard binds it. */
async function freePort(host: string): Promise<number> {
  const server = await bindPublicPort(0, host);
  const port = boundPort(server);
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

