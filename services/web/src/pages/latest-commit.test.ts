import { describe, expect, it } from '@jest/globals';
import type { GatewayApi } from '../clients/api.js';
import type { Commit, Tree } from '../clients/types.js';
import { commitOfListing } from './latest-commit.js';

const who = { name: 'Alice', email: 'alice@example.com', date: '2026-01-01T00:00:00Z' };
const commit = (sha: string): Commit => ({ sha, tree: 'd'.repeat(40), parents: [], author: who, committer: who, message: `At ${sha.slice(0, 4)}\n` });
const tree = (sha: string): Tree => ({ ref: 'main', path: '', commit: sha, entries: [] });

/** An API stand-in that answers the commit log from `answer` and counts the calls. */
function apiAnswering(answer: (path: string) => Commit[] | Error) {
  const asked: string[] = [];
  const api = {
    getImplied: async (path: string) => {
      asked.push(path);
      const commits = answer(path);
      if (commits instanceof Error) throw commits;
      return { ref: 'main', commits };
    },
  } as unknown as GatewayApi;
  return { api, asked };
}

describe('the commit a listing was read at', () => {
  it('when it was read once, then it is not asked for again, for any listing at that sha of that repository', async () => {
    const sha = '1'.repeat(40);
    const { api, asked } = apiAnswering(() => [commit(sha)]);
    expect(await commitOfListing(api, 'alice', 'demo', tree(sha))).toEqual(commit(sha));
    expect(await commitOfListing(api, 'Alice', 'Demo', tree(sha))).toEqual(commit(sha));
    expect(asked).toEqual([`/api/repos/alice/demo/commits/${sha}?limit=1`]);
  });

  it('when the log starts elsewhere than the listed sha, then it is shown but not kept; when it cannot be read, then nothing is shown', async () => {
    const sha = '2'.repeat(40);
    const other = { api: apiAnswering(() => [commit('3'.repeat(40))]) };
    expect((await commitOfListing(other.api.api, 'alice', 'demo', tree(sha)))?.sha).toBe('3'.repeat(40));
    await commitOfListing(other.api.api, 'alice', 'demo', tree(sha));
    expect(other.api.asked).toHaveLength(2);
    const failing = apiAnswering(() => new Error('unavailable'));
    expect(await commitOfListing(failing.api, 'alice', 'demo', tree('4'.repeat(40)))).toBeUndefined();
  });
});
