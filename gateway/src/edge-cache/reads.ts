import type { ServerResponse } from 'node:http';
import type { RepoContext } from '@githost/identity';
import { DEFAULT_SHARD } from '@githost/storage-router';
import { answerFromEdge, type AnswerPending, type EdgeAnswers, type StoredAnswer } from './answers.js';
import type { EdgeRequest, EdgeValidators, Pending } from './validators.js';
import type { GatewayMetrics } from '../metrics.js';

/** What the edge can answer a browse read with: a 304 for a validator the client holds, or a kept answer. */
export type EdgeHit = { notModified: { etag: string; cacheControl: string } } | { kept: StoredAnswer };

/**
 * Browse reads answered by the edge itself (docs/decisions/gateway-serves-warm-reads.md), only ever asked after
 * admission decided that the caller may read the repository. Finding is apart from sending, so a
 * caller may still refuse the request (a spent rate limit) after finding, and nothing is counted
 * for a read that goes on to browse by another way.
 */
export interface EdgeReads {
  /** The edge's answer when it has one still current; counts nothing. */
  find(request: EdgeRequest, ifNoneMatch: string | undefined): EdgeHit | undefined;
  /** Sends what `find` found, exactly as browse would have answered, and counts the hit. */
  send(hit: EdgeHit, method: string, ifNoneMatch: string | undefined, res: ServerResponse): void;
  /** Counts a read the edge could not answer (forwarded to browse). */
  missed(ifNoneMatch: string | undefined): void;
  /** What browse's answer to a forwarded read is stored under, read before forwarding. */
  pending(request: EdgeRequest, method: string): { edgePending?: Pending; answerPending?: AnswerPending };
  /** False when the edge keeps nothing at all. */
  readonly active: boolean;
}

/**
 * The edge's key for a read of `url` in `repo`. `route.edgeFacts`: by the facts version too, and
 * by what the answer shows of the caller: their capped permission, and none at all for an
 * anonymous caller (the face's `Repository.permissions` is null's then, not `read`'s).
 */
export function edgeRequestOf(repo: RepoContext, url: string, route?: { edgeFacts?: boolean }, signedIn = false): EdgeRequest {
  const request: EdgeRequest = { shard: repo.shard || DEFAULT_SHARD, repoId: repo.id, defaultBranch: repo.default_branch, private: repo.private, url };
  return route?.edgeFacts ? { ...request, facts: { permission: signedIn ? repo.permission : 'anonymous' } } : request;
}

export function createEdgeReads(edge: EdgeValidators | undefined, answers: EdgeAnswers | undefined, metrics: GatewayMetrics): EdgeReads {
  return {
    find(request, ifNoneMatch) {
      const notModified = edge?.notModified(request, ifNoneMatch);
      if (notModified) return { notModified };
      const kept = answers?.lookup(request);
      return kept ? { kept } : undefined;
    },
    send(hit, method, ifNoneMatch, res) {
      if ('notModified' in hit) {
        metrics.edgeValidators.inc({ result: 'hit' });
        res.statusCode = 304;
        res.setHeader('ETag', hit.notModified.etag);
        res.setHeader('Cache-Control', hit.notModified.cacheControl);
        res.end();
        return;
      }
      if (ifNoneMatch) metrics.edgeValidators.inc({ result: 'miss' });
      metrics.edgeAnswers.inc({ result: 'hit' });
      answerFromEdge(method, ifNoneMatch, hit.kept, res);
    },
    pending(request, method) {
      const edgePending = edge?.pending(request);
      const answerPending = answers && method === 'GET' ? answers.pending(request) : undefined;
      return { ...(edgePending ? { edgePending } : {}), ...(answerPending ? { answerPending } : {}) };
    },
    active: Boolean(edge || answers),
    missed(ifNoneMatch) {
      if (ifNoneMatch) metrics.edgeValidators.inc({ result: 'miss' });
      if (answers) metrics.edgeAnswers.inc({ result: 'miss' });
    },
  };
}
