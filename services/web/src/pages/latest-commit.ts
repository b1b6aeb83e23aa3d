import { LRUCache } from 'lru-cache';
import type { GatewayApi } from '../clients/api.js';
import type { Commit, Tree } from '../clients/types.js';
import { browseApiPath } from './repo-data.js';

// A commit never changes once it has a sha, and the tree page shows the one its listing was read
// at (bench "Web pages": the page's calls cost the gateway most). Kept by repository and sha, and
// shown only beside a listing this person's own call answered at that very sha, so it tells
// nobody anything the listing did not already let them read.
const kept = new LRUCache<string, Commit>({ max: 10_000 });

/** The commit a listing was read at, or undefined when it cannot be read (the page goes on). */
export async function commitOfListing(api: GatewayApi, owner: string, name: string, tree: Tree): Promise<Commit | undefined> {
  const key = `${owner.toLowerCase()}/${name.toLowerCase()}@${tree.commit}`;
  const known = kept.get(key);
  if (known) return known;
  try {
    const log = await api.getImplied(browseApiPath(owner, name, 'commits', tree.commit, '?limit=1'));
    const commit = log.commits[0] as Commit | undefined;
    if (commit?.sha === tree.commit) kept.set(key, commit);
    return commit;
  } catch {
    return undefined;
  }
}
