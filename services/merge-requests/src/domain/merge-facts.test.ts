import { beforeEach, describe, expect, it } from '@jest/globals';
import { FakeGit, FakeUsers, MemoryStore } from '../../test/support/in-memory.js';
import { MemoryReviews } from '../../test/support/in-memory-workflow.js';
import { createMergeRequest, type Deps } from './merge-requests.js';
import { listWithMergeFactsPage, mergeFactsOf, parseNumbers } from './merge-facts.js';
import type { GitPort } from './ports.js';
import type { Caller, RepoRef } from './types.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const repo: RepoRef = { id: 'r1', owner: 'alice', name: 'proj', shard: 'default', private: false, permission: 'read' };
const bob: Caller = { user_id: 'u-bob', username: 'bob' };
const rejection = (p: Promise<unknown>) => p.then(() => null, (e: { kind: string; message: string }) => ({ kind: e.kind, message: e.message }));

/** FakeGit whose merge check conflicts for one source tip, counting its calls. */
function countingGit() {
  const fake = new FakeGit();
  const counts = { checks: [] as Array<[string, string]>, tipListings: 0 };
  const port: GitPort = Object.assign(Object.create(fake) as FakeGit, {
    branchTips: async () => {
      counts.tipListings++;
      return fake.branchTips();
    },
    checkMerge: async (_repoId: string, ours: string, theirs: string) => {
      counts.checks.push([ours, theirs]);
      return theirs === C ? { clean: false, conflicts: ['a.txt'] } : { clean: true, conflicts: [] };
    },
  });
  return { fake, port, counts };
}

let store: MemoryStore;
let git: ReturnType<typeof countingGit>['counts'];
let requests: MemoryReviews;
let deps: Deps & { requests: MemoryReviews };

beforeEach(async () => {
  store = new MemoryStore();
  const made = countingGit();
  git = made.counts;
  made.fake.branches.set('main', A).set('clean', B).set('conflicting', C).set('gone-soon', B);
  requests = new MemoryReviews();
  deps = { store, git: made.port, requests, users: new FakeUsers([{ id: 'u-bob', username: 'bob', email: 'bob@example.com' }, { id: 'u-alice', username: 'alice', email: 'alice@example.com' }, { id: 'u-rita', username: 'rita', email: 'rita@example.com' }]) };
  for (const source of ['clean', 'conflicting', 'gone-soon', 'clean']) await createMergeRequest(deps, repo, bob, { title: source, source_branch: source, target_branch: 'main' });
  made.fake.branches.delete('gone-soon');
  Object.assign(store.mrs[3]!, { state: 'merged', merged_by: 'u-alice', merged_sha: B });
});

describe('merge facts (services/merge-requests/README.md#merge-facts)', () => {
  it('when asked for open, merged and unknown numbers, then each known one in the order asked: open ones by the merge check, a missing branch null, the merged one with its merger', async () => {
    expect(await mergeFactsOf(deps, repo, '4,2,9,1,3')).toEqual([
      { number: 4, mergeable: null, merged_by_username: 'alice', requested_reviewers: [] },
      { number: 2, mergeable: false, merged_by_username: null, requested_reviewers: [] },
      { number: 1, mergeable: true, merged_by_username: null, requested_reviewers: [] },
      { number: 3, mergeable: null, merged_by_username: null, requested_reviewers: [] },
    ]);
    // One ref listing for every tip; the check as the detail runs it (target tip, then source tip), only for open ones with both branches.
    expect(git.tipListings).toBe(1);
    expect(git.checks.sort()).toEqual([[A, B], [A, C]]);
  });

  it('when only closed or merged ones are asked for, then no tips are listed and no check runs', async () => {
    expect(await mergeFactsOf(deps, repo, '4')).toEqual([{ number: 4, mergeable: null, merged_by_username: 'alice', requested_reviewers: [] }]);
    expect([git.tipListings, git.checks.length]).toEqual([0, 0]);
  });

  it('when reviews are asked of rita and alice on one merge request, then its facts name them, oldest request first', async () => {
    await requests.addRequests(store.mrs[1]!.id, ['u-rita', 'u-alice'], 'u-bob', 100, () => []);
    expect((await mergeFactsOf(deps, repo, '2,1')).map((f) => [f.number, f.requested_reviewers])).toEqual([[2, ['rita', 'alice']], [1, []]]);
  });

  it('when the merger\'s account is gone, then merged_by_username is null', async () => {
    Object.assign(store.mrs[3]!, { merged_by: 'u-deleted' });
    expect(await mergeFactsOf(deps, repo, '4')).toEqual([{ number: 4, mergeable: null, merged_by_username: null, requested_reviewers: [] }]);
  });

  it('when the numbers are missing, not positive integers, or more than 100, then a validation error naming the form', async () => {
    const message = 'numbers must be 1 to 100 merge request numbers, comma-separated';
    for (const bad of [undefined, '', '0', '1,,2', '1,-2', 'a', '1 2', ['1', '2'], Array.from({ length: 101 }, (_, i) => i + 1).join(',')]) {
      expect(await rejection(mergeFactsOf(deps, repo, bad))).toEqual({ kind: 'validation', message });
    }
    expect(parseNumbers('3,1,3')).toEqual([3, 1]);
    expect(parseNumbers(Array.from({ length: 100 }, (_, i) => i + 1).join(','))).toHaveLength(100);
  });

  it('when the repository is private and the caller cannot read it, then not found', async () => {
    expect(await rejection(mergeFactsOf(deps, { ...repo, private: true, permission: 'none' }, '1'))).toEqual({ kind: 'not_found', message: 'Repository not found' });
  });

  it('when a cursor page of the list is asked with its merge facts, then each record of the page carries what merge-facts answers for it, and the page and count are the list\'s', async () => {
    await requests.addRequests(store.mrs[0]!.id, ['u-rita'], 'u-bob', 100, () => []);
    const found = await listWithMergeFactsPage(deps, repo, 'open', { perPage: 2, start: { kind: 'newest' } });
    expect(found.total).toBe(3);
    expect(found.rows.map((mr) => [mr.number, mr.author_username, mr.mergeable, mr.merged_by_username, mr.requested_reviewers])).toEqual([
      [3, 'bob', null, null, []],
      [2, 'bob', false, null, []],
    ]);
    const facts = await mergeFactsOf(deps, repo, '3,2');
    expect(found.rows.map(({ number, mergeable, merged_by_username, requested_reviewers }) => ({ number, mergeable, merged_by_username, requested_reviewers }))).toEqual(facts);
    const merged = await listWithMergeFactsPage(deps, repo, 'merged', { perPage: 10, start: { kind: 'newest' } });
    expect(merged.rows.map((mr) => [mr.number, mr.merged_by_username])).toEqual([[4, 'alice']]);
    // One ref listing for the page's open ones, none for a page with none open.
    expect(git.tipListings).toBe(2);
  });
});
