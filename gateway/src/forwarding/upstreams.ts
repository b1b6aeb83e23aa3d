import type { Agent, IncomingMessage } from 'node:http';
import type { Logger } from '@githost/logging';
import type { PartnerCheck } from '@githost/api-client/partner-check';
import { DEFAULT_SHARD, singleShard } from '@githost/storage-router';
import type { Config, UpstreamName } from '../config.js';
import { keepAnswer, type EdgeAnswers } from '../edge-cache/answers.js';
import type { EdgeValidators } from '../edge-cache/validators.js';
import { gitStorageTarget } from './git-storage-shards.js';
import { upstreamProxy } from './proxy.js';
import { stateOf } from '../request-state.js';
import type { UpstreamHandler } from './forward.js';
import type { GatewayMetrics } from '../metrics.js';

const API_TIMEOUT_MS = 120_000;

export interface UpstreamDeps {
  agent: Agent;
  logger: Logger;
  edge?: EdgeValidators;
  answers?: EdgeAnswers;
  metrics?: Pick<GatewayMetrics, 'upstreamRetries'>;
  /** The health check of an upstream with a fallback (forwarding/partners.ts). */
  partners?: Map<UpstreamName, PartnerCheck>;
}

/** A proxy for each configured upstream; git transport goes to the shard accounts named for the request. */
export function createUpstreamProxies(config: Pick<Config, 'upstreams' | 'gitStorageShards' | 'fallbacks'>, { agent, logger, edge, answers, metrics, partners }: UpstreamDeps): Map<UpstreamName, UpstreamHandler> {
  const onResponse = answerHook(edge, answers);
  const shardOf = (req: IncomingMessage) => stateOf(req)?.repo?.shard || DEFAULT_SHARD;
  const proxies = new Map<UpstreamName, UpstreamHandler>();
  for (const [name, target] of Object.entries(config.upstreams) as [UpstreamName, string | undefined][]) {
    if (!target) continue;
    const router = name === 'git-storage' ? gitStorageTarget(config.gitStorageShards ?? singleShard(target), shardOf) : undefined;
    proxies.set(name, upstreamProxy(name, {
      target,
      router,
      fallbackTarget: config.fallbacks?.[name],
      partner: partners?.get(name),
      agent,
      logger,
      timeoutMs: name === 'git-storage' ? undefined : API_TIMEOUT_MS,
      onResponse,
      onRetry: () => metrics?.upstreamRetries.inc({ upstream: name }),
    }));
  }
  return proxies;
}

/** What an upstream's answer settles before it reaches the client: a 2xx drops the cached access
 *  it made stale; a browse 200 with validators is kept at the edge (validators, and the whole answer). */
function answerHook(edge: EdgeValidators | undefined, answers: EdgeAnswers | undefined): (req: IncomingMessage, proxyRes: IncomingMessage) => void {
  return (req, proxyRes) => {
    const state = stateOf(req);
    const status = proxyRes.statusCode ?? 0;
    if (status >= 200 && status < 300) state?.staleOnSuccess?.();
    const pending = edge && status === 200 ? state?.edgePending : undefined;
    const { etag, 'cache-control': cacheControl } = proxyRes.headers;
    if (pending && etag && cacheControl) edge!.store(pending, { etag, cacheControl });
    if (answers && state?.answerPending) keepAnswer(answers, state.answerPending, proxyRes);
  };
}
