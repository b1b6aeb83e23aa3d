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
