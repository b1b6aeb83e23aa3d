import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeIdentity } from '@githost/identity';
import type { Config } from '../../src/index.js';

/**
 * A browse stand-in answering as browse does: the ETag a function of the repository's head and
 * the URL, 304 on a matching If-None-Match, `no-cache` or `private, no-cache`; counts requests.
 */
export async function startFakeBrowse(secret: string) {
  const heads = new Map<string, number>();
  let requests = 0;
  const server: Server = createHttpServer((req, res) => {
    requests++;
    const identity = decodeIdentity(req.headers, secret);
    const repo = identity.repo!;
    const etag = `"${repo.id}-${heads.get(repo.id) ?? 0}-${Buffer.from(req.url ?? '').toString('base64url')}"`;
    if (req.url?.includes('/missing')) {
      res.statusCode = 404;
      res.end('{"error":"Not found"}');
      return;
    }
    const immutable = /\/[0-9a-f]{40}(?:\/|$)/.test(req.url ?? '');
    const scope = repo.private ? 'private' : 'public';
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', immutable ? `${scope}, max-age=31536000, immutable` : repo.private ? 'private, no-cache' : 'no-cache');
    if (req.headers['if-none-match'] === etag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    // Headers a cached answer must carry exactly as browse sent them.
    res.setHeader('Link', '</next>; rel="next"');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const filler = req.url?.includes('/big') ? 'é'.repeat(20_000) : '';
    res.end(JSON.stringify({ head: heads.get(repo.id) ?? 0, default_branch: repo.default_branch, url: req.url, filler }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    /** A push: the head moves, and so does the watch's version (before the push returns). */
    push(repoId: string) {
      heads.set(repoId, (heads.get(repoId) ?? 0) + 1);
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A gateway's config with accounts and browse only (every other upstream absent), on free ports. */
export function browseOnlyConfig(secret: string, accountsAddress: string, browseUrl: string): Config {
  return {
    port: 0,
    metricsPort: 0,
    internalSecret: secret,
    accountsGrpcAddress: accountsAddress,
    upstreams: { accounts: undefined, 'git-storage': undefined, browse: browseUrl, 'merge-requests': undefined, webhooks: undefined },
  };
}
