import { expect } from '@jest/globals';
import { sample } from '@githost/test-support';
import { giteaApi, type Api } from 'gitea-js';
import type { TestGithost } from './githost.js';

/**
 * gitea-js (the client generated from Gitea's swagger document) pointed at githost's Gitea API,
 * as a tool would point it at a Gitea instance: the base URL without `/api/v1`, which the client adds.
 */
export function giteaClient(gh: Pick<TestGithost, 'url'>, token?: string): Api<unknown> {
  return giteaApi(gh.url, token === undefined ? {} : { token });
}

/** What a gitea-js call rejected with: the `Response` it throws on a non-2xx, its status and body. */
export async function giteaFailure(call: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  try {
    await call;
  } catch (err) {
    const res = err as Response & { error?: unknown };
    return { status: res.status, body: res.error };
  }
  throw new Error('the call succeeded');
}

/** A raw read of githost's Gitea API (`/api/v1{path}`), with a token when given: status, body and the headers the edge tests read. */
export async function giteaRead(gh: Pick<TestGithost, 'url'>, path: string, token?: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${gh.url}/api/v1${path}`, { headers: { ...headers, ...(token ? { authorization: `token ${token}` } : {}) } });
  const text = await res.text();
  return { status: res.status, text, etag: res.headers.get('etag'), cacheControl: res.headers.get('cache-control'), total: res.headers.get('x-total-count') };
}

/** The gateway's count of answers it served from its edge (githost_gateway_edge_answers_total, hits). */
export async function edgeAnswerHits(gh: Pick<TestGithost, 'metricsUrl'>): Promise<number> {
  return sample(await (await fetch(gh.metricsUrl)).text(), 'githost_gateway_edge_answers_total', { result: 'hit' }) ?? 0;
}

/**
 * Reads `path` until the gateway answers it from a kept answer (its watch of git-storage may take
 * a moment to go live): two reads with the same body, the second counted as an edge hit. Two
 * bodies that differ mean the list was still moving (a push's follower updates a pull request's
 * head a moment after the push returns, docs/decisions/pulls-at-the-edge.md#what-the-list-shows-and-what-moves-each-version):
 * then it reads again.
 */
export async function keptAtEdge(gh: Pick<TestGithost, 'url' | 'metricsUrl'>, path: string, token?: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const first = await giteaRead(gh, path, token);
    expect(first.status).toBe(200);
    const hits = await edgeAnswerHits(gh);
    const second = await giteaRead(gh, path, token);
    if (second.text === first.text && (await edgeAnswerHits(gh)) > hits) return second.text;
    if (Date.now() > deadline) throw new Error('the gateway never answered from a kept answer');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
