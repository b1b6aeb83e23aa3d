import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { RepoContext } from '@githost/identity';
import type { UpstreamName } from '../config.js';
import { createEdgeAnswers } from '../edge-cache/answers.js';
import { createEdgeReads, edgeRequestOf } from '../edge-cache/reads.js';
import { createGatewayMetrics } from '../metrics.js';
import { createRateLimitGate } from '../admission/rate-limit.js';
import { matchRoute } from '../admission/routes.js';
import { createForwarding, type UpstreamHandler } from './forward.js';
import type { RequestState } from '../request-state.js';

const demo: RepoContext = { id: 'r-1', owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission: 'read', owner_id: 'u-alice' };
const CONTENTS = '/api/v1/repos/alice/demo/contents/a.txt?ref=main';
const KEPT = '{"name":"a.txt"}';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Forwarding behind admission's outcome `state`, to a face that answers 299 and records what reached it. */
async function forwarding(state: (path: string) => RequestState) {
  const metrics = createGatewayMetrics();
  const answers = createEdgeAnswers({ version: () => 'v1' });
  answers.store(answers.pending(edgeRequestOf(demo, CONTENTS)), 200, { etag: '"e1"', 'cache-control': 'no-cache', 'content-type': 'application/json; charset=utf-8' }, Buffer.from(KEPT));
  const reached: string[] = [];
  const face: UpstreamHandler = (req, res) => {
    reached.push(req.url ?? '');
    res.statusCode = 299;
    res.end();
  };
  const forward = createForwarding({
    proxies: new Map<UpstreamName, UpstreamHandler>([['gitea-api', face]]),
    reads: createEdgeReads(undefined, answers, metrics),
    internalSecret: 'forward-test-secret',
    withinRateLimit: createRateLimitGate({ perTokenPerMinute: 0, anonymousPerMinute: 2 }),
    metrics,
    addressOf: (req) => req.socket.remoteAddress ?? '',
  });
  const app = express();
  app.use((req, res, next) => void Promise.resolve(forward(req, res, next, state(req.url))).catch(next));
  server = createServer(app);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  const read = async (path: string) => {
    const res = await fetch(base + path);
    return [res.status, await res.text()] as const;
  };
  return { read, reached };
}

describe('Gitea reads at the edge (docs/decisions/gitea-api.md#warm-reads-at-the-edge)', () => {
  it('when admission found a reader, then a kept Gitea answer is sent from the edge and counted against the reader\'s budget', async () => {
    const f = await forwarding((path) => ({ route: matchRoute('GET', path.split('?')[0]!, path.split('?')[1])!, principal: null, repo: demo, requestId: 'r', rateClient: { anonymous: true, credential: false, address: '203.0.113.7' } }));
    expect([await f.read(CONTENTS), await f.read(CONTENTS), (await f.read(CONTENTS))[0]]).toEqual([[200, KEPT], [200, KEPT], 429]);
    expect(f.reached).toEqual([]);
  });

  it('when admission found no reader (a stranger, a bad token), then the read goes to the face, which words the refusal', async () => {
    const f = await forwarding((path) => ({ route: matchRoute('GET', path.split('?')[0]!, path.split('?')[1])!, principal: null, repo: null, requestId: 'r' }));
    expect(await f.read(CONTENTS)).toEqual([299, '']);
    expect(f.reached).toEqual([CONTENTS]);
  });
});
