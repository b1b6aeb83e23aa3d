import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@githost/test-support';
import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@githost/bus';
import { commitAll, createTestRepository, git, makeWorkdir, pushTo, writeFiles } from '@githost/git-storage/testing';
import { RULE_DEFAULTS, type BranchProtection } from '@githost/ref-policy';
import type { Principal } from '@githost/identity';
import { identityHeaders, user } from './support/identity.js';
import { POLICIES, startStack, type Stack } from './support/stack.js';

// Reviews, commit statuses and the merge gate on the real service: Postgres, git-storage over
// gRPC, accounts' GetRefPolicy over gRPC (services/merge-requests/README.md#reviews, #commit-statuses, #merge-gate).
const alice = user('u-alice', 'alice');
const bob = user('u-bob', 'bob');
const carol = user('u-carol', 'carol');
let stack: Stack;
const events: EventEnvelope[] = [];

beforeAll(async () => {
  stack = await startStack();
  await stack.bus.subscribe(`workflow-${randomUUID()}`, ['merge_request_review', 'status'], async (e) => void events.push(e));
});
afterAll(async () => stack?.stop());

interface Repo {
  id: string;
  wd: string;
  bare: string;
}

/** `main` and `feature/x` one commit ahead of it. */
async function makeRepo(): Promise<Repo> {
  const id = randomUUID();
  await createTestRepository(stack.storage, id);
  const wd = await makeWorkdir();
  await writeFiles(wd, { 'a.txt': 'one\n' });
  await commitAll(wd, 'initial');
  await git(wd, 'checkout', '-q', '-b', 'feature/x');
  await writeFiles(wd, { 'a.txt': 'one\ntwo\n' });
  await commitAll(wd, 'feature work');
  await pushTo(stack.storage, id, wd, 'main', 'feature/x');
  return { id, wd, bare: stack.storage.repoPath(id) };
}

async function pushFeature(r: Repo, content: string): Promise<string> {
  await writeFiles(r.wd, { 'a.txt': content });
  const sha = await commitAll(r.wd, 'more work');
  await pushTo(stack.storage, r.id, r.wd, 'feature/x');
  return sha;
}

async function call(r: Repo, who: Principal | null, method: string, path: string, body?: unknown, permission: 'none' | 'read' | 'write' | 'admin' = 'write', isPrivate = false) {
  const res = await fetch(`${stack.baseUrl}/api/repos/alice/proj${path}`, {
    method,
    headers: identityHeaders(who, { id: r.id, permission, private: isPrivate }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & Array<Record<string, unknown>> };
}
const tip = async (r: Repo, ref: string) => (await git(r.bare, 'rev-parse', ref)).trim();
const openMr = (r: Repo) => call(r, alice, 'POST', '/merge-requests', { title: 'Feature', source_branch: 'feature/x', target_branch: 'main' });
const protect = (r: Repo, rule: Partial<BranchProtection>) =>
  POLICIES.set(r.id, { default_branch: 'main', allow_tag_changes: false, protections: [{ ...RULE_DEFAULTS, pattern: 'main', ...rule }] });

describe('reviews', () => {
  it('when a writer approves, then 201 on the live head, the event is published, and the detail counts it until a push makes it stale', async () => {
    const r = await makeRepo();
    await openMr(r);
    const head = await tip(r, 'refs/heads/feature/x');
    const res = await call(r, bob, 'POST', '/merge-requests/1/reviews', { event: 'approve', body: 'LGTM' });
    expect(res).toEqual({ status: 201, body: { id: expect.any(String), mr_id: expect.any(String), author_id: 'u-bob', author_username: 'bob', state: 'approved', body: 'LGTM', commit_sha: head, created_at: expect.any(String), stale: false } });
    await waitFor(() => events.some((e) => e.repository.id === r.id && e.kind === 'merge_request_review'));
    expect(events.find((e) => e.repository.id === r.id)!.payload).toEqual({
      event: 'merge_request_review',
      action: 'submitted',
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' },
      sender: { username: 'bob' },
      merge_request: { number: 1, title: 'Feature', state: 'open' },
      review: { id: res.body.id, state: 'approved', body: 'LGTM', commit_sha: head },
    });
    expect((await call(r, null, 'GET', '/merge-requests/1')).body.review_summary).toEqual({ approvals: 1, changes_requested: 0 });

    const newHead = await pushFeature(r, 'one\ntwo\nthree\n');
    expect((await call(r, null, 'GET', '/merge-requests/1')).body.review_summary).toEqual({ approvals: 0, changes_requested: 0 });
    const list = await call(r, null, 'GET', '/merge-requests/1/reviews');
    expect(list.body.map((v) => [v.commit_sha, v.stale])).toEqual([[head, true]]);
    await call(r, carol, 'POST', '/merge-requests/1/reviews', { event: 'request_changes', body: 'no' });
    expect((await call(r, null, 'GET', '/merge-requests/1')).body.review_summary).toEqual({ approvals: 0, changes_requested: 1 });
    expect((await call(r, null, 'GET', '/merge-requests/1/reviews')).body.map((v) => [v.author_username, v.state, v.commit_sha, v.stale])).toEqual([
      ['bob', 'approved', head, true],
      ['carol', 'changes_requested', newHead, false],
    ]);
  });

  it('when a reader approves, then it is recorded but does not count; the author cannot approve; bad input is 400 and writes nothing', async () => {
    const r = await makeRepo();
    await openMr(r);
    expect((await call(r, carol, 'POST', '/merge-requests/1/reviews', { event: 'approve' }, 'read')).status).toBe(201);
    expect((await call(r, null, 'GET', '/merge-requests/1')).body.review_summary).toEqual({ approvals: 0, changes_requested: 0 });
    expect(await call(r, alice, 'POST', '/merge-requests/1/reviews', { event: 'approve' })).toEqual({ status: 400, body: { error: 'Can not approve your own merge request' } });
    expect(await call(r, bob, 'POST', '/merge-requests/1/reviews', { event: 'merge' })).toEqual({ status: 400, body: { error: 'event must be one of: approve, request_changes, comment' } });
    expect(await call(r, bob, 'POST', '/merge-requests/9/reviews', { event: 'approve' })).toEqual({ status: 404, body: { error: 'Merge request #9 not found' } });
    expect(await call(r, bob, 'POST', '/merge-requests/1/reviews', { event: 'approve' }, 'none', true)).toEqual({ status: 404, body: { error: 'Repository not found' } });
    expect(await call(r, null, 'GET', '/merge-requests/1/reviews', undefined, 'none', true)).toEqual({ status: 404, body: { error: 'Repository not found' } });
    expect((await call(r, null, 'GET', '/merge-requests/1/reviews')).body).toHaveLength(1);
  });
});

describe('commit statuses', () => {
  it('when CI posts statuses, then they are listed newest first by branch (with a slash), tag and sha, combined per context, and published', async () => {
    const r = await makeRepo();
    const sha = await tip(r, 'refs/heads/feature/x');
    await git(r.bare, 'tag', '-a', '-m', 'v1', 'v1', sha);
    const first = await call(r, bob, 'POST', `/statuses/${sha}`, { state: 'pending', context: 'ci/build', description: 'Building', target_url: 'https://ci.example/1' });
    expect(first).toEqual({
      status: 201,
      body: { id: expect.any(String), sha, state: 'pending', context: 'ci/build', description: 'Building', target_url: 'https://ci.example/1', creator: { username: 'bob' }, created_at: expect.any(String), updated_at: expect.any(String) },
    });
    await call(r, bob, 'POST', `/statuses/${sha}`, { state: 'success', context: 'ci/build' });
    await call(r, bob, 'POST', `/statuses/${sha}`, { state: 'error' });
    for (const ref of ['feature/x', 'feature%2Fx', 'v1', sha]) {
      const list = await call(r, null, 'GET', `/commits/${ref}/statuses`);
      expect(list.status).toBe(200);
      expect(list.body.map((s) => [s.context, s.state])).toEqual([['default', 'error'], ['ci/build', 'success'], ['ci/build', 'pending']]);
    }
    expect((await call(r, null, 'GET', `/commits/feature/x/statuses?per_page=1&page=2`)).body.map((s) => s.state)).toEqual(['success']);
    const combined = await call(r, null, 'GET', '/commits/feature/x/status');
    expect(combined.body).toMatchObject({ state: 'failure', sha, total_count: 2 });
    expect((combined.body.statuses as Array<{ context: string; state: string }>).map((s) => [s.context, s.state])).toEqual([['default', 'error'], ['ci/build', 'success']]);
    expect(await call(r, null, 'GET', '/commits/main/status')).toEqual({ status: 200, body: { state: 'pending', sha: await tip(r, 'refs/heads/main'), total_count: 0, statuses: [] } });
    await waitFor(() => events.filter((e) => e.repository.id === r.id && e.kind === 'status').length === 3);
    expect(events.find((e) => e.repository.id === r.id && e.kind === 'status')!.payload).toEqual({
      event: 'status', sha, state: 'pending', context: 'ci/build', description: 'Building', target_url: 'https://ci.example/1',
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' }, sender: { username: 'bob' },
    });
  });

  it('when the sha is not a commit of the repository, the ref is unknown, the state is bad or the caller only reads, then 4xx and nothing is written', async () => {
    const r = await makeRepo();
    const sha = await tip(r, 'refs/heads/main');
    const tree = await tip(r, 'main^{tree}');
    const ghost = 'f'.repeat(40);
    expect(await call(r, bob, 'POST', `/statuses/${ghost}`, { state: 'success' })).toEqual({ status: 404, body: { error: `Commit not found: ${ghost}` } });
    expect(await call(r, bob, 'POST', `/statuses/${tree}`, { state: 'success' })).toEqual({ status: 404, body: { error: `Commit not found: ${tree}` } });
    expect(await call(r, bob, 'POST', `/statuses/${sha.slice(0, 7)}`, { state: 'success' })).toEqual({ status: 404, body: { error: `Commit not found: ${sha.slice(0, 7)}` } });
    expect(await call(r, bob, 'POST', `/statuses/${sha}`, { state: 'done' })).toEqual({ status: 400, body: { error: 'state must be one of: pending, success, failure, error' } });
    expect(await call(r, bob, 'POST', `/statuses/${sha}`, { state: 'success' }, 'read')).toEqual({ status: 400, body: { error: 'You do not have write access to this repository' } });
    expect(await call(r, bob, 'POST', `/statuses/${sha}`, { state: 'success' }, 'none', true)).toEqual({ status: 404, body: { error: 'Repository not found' } });
    expect(await call(r, null, 'GET', '/commits/nope/statuses')).toEqual({ status: 404, body: { error: 'Ref not found: nope' } });
    expect(await call(r, null, 'GET', `/commits/${ghost}/status`)).toEqual({ status: 404, body: { error: `Ref not found: ${ghost}` } });
    expect((await call(r, null, 'GET', `/commits/${sha}/statuses`)).body).toEqual([]);
  });

  it('when 1,010 statuses race for one context, then exactly 1,000 are stored and the rest get 400', async () => {
    const r = await makeRepo();
    const sha = await tip(r, 'refs/heads/main');
    const outcomes: number[] = [];
    for (let batch = 0; batch < 1010; batch += 101) {
      const res = await Promise.all(Array.from({ length: 101 }, () => call(r, bob, 'POST', `/statuses/${sha}`, { state: 'pending', context: 'load' })));
      outcomes.push(...res.map((x) => x.status));
    }
    expect(outcomes.filter((s) => s === 201)).toHaveLength(1000);
    expect(outcomes.filter((s) => s === 400)).toHaveLength(10);
    expect(await call(r, bob, 'POST', `/statuses/${sha}`, { state: 'success', context: 'load' })).toEqual({ status: 400, body: { error: 'This commit already has 1000 statuses for context "load"; no more can be created' } });
    expect((await call(r, bob, 'POST', `/statuses/${sha}`, { state: 'success', context: 'other' })).status).toBe(201);
    expect((await call(r, null, 'GET', `/commits/${sha}/status`)).body).toMatchObject({ state: 'pending', total_count: 2 });
  }, 60_000);
});

describe('merge gate', () => {
  it('when main requires ci/build, then the merge is 409 and nothing moves until CI posts success on the head', async () => {
    const r = await makeRepo();
    await openMr(r);
    protect(r, { required_status_checks: ['ci/build'] });
    const before = await tip(r, 'refs/heads/main');
    expect(await call(r, bob, 'POST', '/merge-requests/1/merge')).toEqual({ status: 409, body: { error: 'Required status check "ci/build" is not successful', reason: 'branch_protection' } });
    expect(await tip(r, 'refs/heads/main')).toBe(before);
    const head = await tip(r, 'refs/heads/feature/x');
    await call(r, bob, 'POST', `/statuses/${head}`, { state: 'failure', context: 'ci/build' });
    expect((await call(r, bob, 'POST', '/merge-requests/1/merge')).status).toBe(409);
    await call(r, bob, 'POST', `/statuses/${head}`, { state: 'success', context: 'ci/build' });
    expect((await call(r, null, 'GET', '/merge-requests/1')).body.status).toMatchObject({ state: 'success', sha: head, total_count: 1 });
    expect(await call(r, bob, 'POST', '/merge-requests/1/merge')).toEqual({ status: 200, body: { merged: true, sha: head, strategy: 'fast-forward' } });
  });

  it('when main requires one approval, then the merge is 409 until a writer approves the current head', async () => {
    const r = await makeRepo();
    await openMr(r);
    protect(r, { required_approvals: 1 });
    await call(r, carol, 'POST', '/merge-requests/1/reviews', { event: 'approve' }, 'read');
    expect(await call(r, bob, 'POST', '/merge-requests/1/merge')).toEqual({ status: 409, body: { error: '1 approving review required', reason: 'branch_protection' } });
    await call(r, carol, 'POST', '/merge-requests/1/reviews', { event: 'approve' }, 'write');
    await pushFeature(r, 'one\ntwo\nstale\n');
    expect(await call(r, bob, 'POST', '/merge-requests/1/merge')).toEqual({ status: 409, body: { error: '1 approving review required', reason: 'branch_protection' } });
    await call(r, carol, 'POST', '/merge-requests/1/reviews', { event: 'approve' }, 'write');
    const merged = await call(r, bob, 'POST', '/merge-requests/1/merge');
    expect(merged).toEqual({ status: 200, body: { merged: true, sha: await tip(r, 'refs/heads/feature/x'), strategy: 'fast-forward' } });
    expect((await call(r, null, 'GET', '/merge-requests/1')).body.state).toBe('merged');
  });
});
