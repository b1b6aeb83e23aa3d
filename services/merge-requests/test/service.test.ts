import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@githost/test-support';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { openDatabase, type Database } from '@githost/db';
import { commitAll, createTestRepository, git, makeWorkdir, pushTo, writeFiles } from '@githost/git-storage/testing';
import { INTENT_STALE_AFTER_MS, PgMergeRequestStore } from '../src/db/merge-request-store.js';
import { identityHeaders, user } from './support/identity.js';
import { interceptUpdateRef, loseUpdateRefAnswer, startStack, type Stack } from './support/stack.js';

// The real service: Postgres, git-storage over gRPC with repositories built by git, accounts over gRPC.
const bob = user('u-bob', 'bob');
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

/** The seed's event (CONTRACT §9: the lifecycle actions travel under the same kind). */
const isMerged = (e: { payload: unknown }) => (e.payload as { action?: string }).action === 'merged';

interface Repo {
  id: string;
  wd: string;
  bare: string;
  base: string;
}

/** A repository with `main` (README, a.txt) and `feature` one commit ahead changing a.txt. */
async function makeRepo(): Promise<Repo> {
  const id = randomUUID();
  await createTestRepository(stack.storage, id);
  const wd = await makeWorkdir();
  await writeFiles(wd, { 'README.md': 'hello\n', 'a.txt': 'one\ntwo\nthree\n' });
  const base = await commitAll(wd, 'initial', { date: '2024-01-01T00:00:00Z' });
  await git(wd, 'checkout', '-q', '-b', 'feature');
  await writeFiles(wd, { 'a.txt': 'one\ntwo\nthree\nfour\n', 'new.txt': 'new file\n' });
  await commitAll(wd, 'feature work', { date: '2024-01-02T00:00:00Z' });
  await git(wd, 'checkout', '-q', 'main');
  await pushTo(stack.storage, id, wd, 'main', 'feature');
  return { id, wd, bare: stack.storage.repoPath(id), base };
}

/** Moves main on with a change that does not touch a.txt (or does, for a conflict). */
async function advanceMain(r: Repo, files: Record<string, string> = { 'README.md': 'hello again\n' }): Promise<string> {
  await git(r.wd, 'checkout', '-q', 'main');
  await writeFiles(r.wd, files);
  const sha = await commitAll(r.wd, 'main moves on', { date: '2024-01-03T00:00:00Z' });
  await pushTo(stack.storage, r.id, r.wd, 'main');
  return sha;
}

async function call(r: Repo, method: string, path: string, body?: unknown, opts: { permission?: 'read' | 'write' } = {}) {
  const res = await fetch(`${stack.baseUrl}/api/repos/alice/proj${path}`, {
    method,
    headers: identityHeaders(bob, { id: r.id, permission: opts.permission ?? 'write' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & Array<Record<string, unknown>> };
}
const open = (r: Repo, title = 'Feature') => call(r, 'POST', '/merge-requests', { title, source_branch: 'feature', target_branch: 'main' });
const tip = async (r: Repo, branch: string) => (await git(r.bare, 'rev-parse', `refs/heads/${branch}`)).trim();

/** What a process that died mid-merge left: bob's claim of a fast-forward of main to `newOid`,
 *  written straight to the store. The caller closes the database it returns. */
async function claimFastForward(mrId: string, r: Repo, newOid: string, requestId: string | null, storeOptions?: { heartbeatMs: number }): Promise<Database> {
  const db = await openDatabase({ url: stack.config.databaseUrl, schema: 'merge_requests' });
  await new PgMergeRequestStore(db, storeOptions).claimMerge({
    mr_id: mrId,
    repo: { id: r.id, owner: 'alice', name: 'proj', shard: 'default' },
    merger_id: 'u-bob',
    request_id: requestId,
    plan: { target_ref: 'refs/heads/main', old_oid: r.base, new_oid: newOid, strategy: 'fast-forward' },
  });
  return db;
}

describe('merge-requests service on Postgres and git-storage', () => {
  it('when a merge request is created, then it records the real source tip and numbers from 1', async () => {
    const r = await makeRepo();
    const res = await open(r);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ number: 1, source_sha: await tip(r, 'feature'), state: 'open', description: null });
  });

  it('when 50 merge requests are created at once, then numbers are 1..50 without gap or duplicate', async () => {
    const r = await makeRepo();
    const all = await Promise.all(Array.from({ length: 50 }, (_, i) => open(r, `mr ${i}`)));
    expect(all.every((x) => x.status === 201)).toBe(true);
    expect(all.map((x) => x.body.number as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('when a branch does not exist, then 404 `Branch not found: <branch>`', async () => {
    const r = await makeRepo();
    expect(await call(r, 'POST', '/merge-requests', { title: 't', source_branch: 'ghost', target_branch: 'main' })).toEqual({ status: 404, body: { error: 'Branch not found: ghost' } });
    expect(await call(r, 'POST', '/merge-requests', { title: 't', source_branch: 'feature', target_branch: 'a..b' })).toEqual({ status: 404, body: { error: 'Branch not found: a..b' } });
  });

  it('when reading the detail, then the live diff target -> source, comments, mergeable; a deleted branch is absent', async () => {
    const r = await makeRepo();
    await open(r);
    await call(r, 'POST', '/merge-requests/1/comments', { body: 'first', file_path: 'a.txt', line_number: 4, diff_side: 'new' });
    const d = await call(r, 'GET', '/merge-requests/1');
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ source_sha: await tip(r, 'feature'), target_sha: await tip(r, 'main'), mergeable: true, diff_truncated: false, author_username: 'bob' });
    const diff = d.body.diff as Array<Record<string, unknown>>;
    expect(diff.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['a.txt', 'modified', 1, 0],
      ['new.txt', 'added', 1, 0],
    ]);
    expect(diff[1]).toMatchObject({ old_path: 'new.txt', old_mode: null, new_mode: '100644', old_sha: null, binary: false });
    expect(diff[0]!.patch).toContain('+four');
    expect(d.body.comments).toEqual([expect.objectContaining({ body: 'first', author_username: 'bob', line_number: 4, diff_side: 'new' })]);

    await git(r.bare, 'update-ref', '-d', 'refs/heads/feature');
    stack.storage.service.context.refs.invalidate(r.bare);
    const gone = await call(r, 'GET', '/merge-requests/1');
    expect(gone.body).not.toHaveProperty('source_sha');
    expect(gone.body).toMatchObject({ diff: [], mergeable: null });
  });

  it('when the detail is read again, then its diff is not asked of git-storage again, byte for byte the same; after a push to the source, the new head\'s diff', async () => {
    const diffCalls = async () => {
      const m = /^githost_merge_requests_grpc_client_handled_seconds_count\{[^}]*method="Diff",code="OK"[^}]*\} (\d+)/m.exec(await (await fetch(stack.metricsUrl)).text());
      return Number(m?.[1] ?? 0);
    };
    const r = await makeRepo();
    await open(r);
    const raw = async () => (await fetch(`${stack.baseUrl}/api/repos/alice/proj/merge-requests/1`, { headers: identityHeaders(bob, { id: r.id, permission: 'read' }) })).text();
    const before = await diffCalls();
    const first = await raw();
    expect(await diffCalls()).toBe(before + 1);
    const second = await raw();
    expect(second).toBe(first);
    expect(await diffCalls()).toBe(before + 1);

    await git(r.wd, 'checkout', '-q', 'feature');
    await writeFiles(r.wd, { 'b.txt': 'pushed later\n' });
    const head = await commitAll(r.wd, 'more work', { date: '2024-01-04T00:00:00Z' });
    await git(r.wd, 'checkout', '-q', 'main');
    await pushTo(stack.storage, r.id, r.wd, 'feature');
    const moved = JSON.parse(await raw()) as { source_sha: string; diff: Array<{ path: string }> };
    expect([moved.source_sha, moved.diff.map((f) => f.path)]).toEqual([head, ['a.txt', 'b.txt', 'new.txt']]);
    expect(await diffCalls()).toBe(before + 2);
  });

  it('when the diff spans more than 3000 files, then 3000 entries and diff_truncated (CONTRACT §5)', async () => {
    const r = await makeRepo();
    // fast-import writes the 3001-file commit in one process, far quicker than a work tree
    const files = Array.from({ length: 3001 }, (_, i) => `M 100644 inline many/f${i}.txt\ndata ${String(i).length + 1}\n${i}\n`).join('');
    const stream = `commit refs/heads/wide\ncommitter T <t@example.com> 1700000000 +0000\ndata 4\nwide\nfrom ${r.base}\n${files}\n`;
    await new Promise<void>((resolve, reject) => {
      const child = spawn('git', ['fast-import', '--quiet'], { cwd: r.bare, stdio: ['pipe', 'ignore', 'inherit'] });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import exited ${code}`))));
      child.stdin.end(stream);
    });
    stack.storage.service.context.refs.invalidate(r.bare);
    await call(r, 'POST', '/merge-requests', { title: 'wide', source_branch: 'wide', target_branch: 'main' });
    const d = await call(r, 'GET', '/merge-requests/1');
    expect(d.status).toBe(200);
    expect((d.body.diff as unknown[]).length).toBe(3000);
    expect(d.body.diff_truncated).toBe(true);
  });

  it('when the target is an ancestor of the source, then a fast-forward moves main to the source tip and the event goes out', async () => {
    const r = await makeRepo();
    await open(r);
    const source = await tip(r, 'feature');
    expect(await call(r, 'POST', '/merge-requests/1/merge')).toEqual({ status: 200, body: { merged: true, sha: source, strategy: 'fast-forward' } });
    expect(await tip(r, 'main')).toBe(source);
    const detail = await call(r, 'GET', '/merge-requests/1');
    expect(detail.body).toMatchObject({ state: 'merged', merged_sha: source, merged_by: 'u-bob' });
    const activity = await call(r, 'GET', '/activity');
    expect(activity.body[0]).toMatchObject({ action: 'merge_mr', user_id: 'u-bob', data: { mr_number: 1, mr_title: 'Feature', merged_sha: source } });
    await waitFor(() => stack.events.some((e) => e.repository.id === r.id && isMerged(e)));
    expect(stack.events.find((e) => e.repository.id === r.id && isMerged(e))!.payload).toEqual({
      event: 'merge_request',
      action: 'merged',
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' },
      sender: { username: 'alice' },
      merge_request: { number: 1, title: 'Feature', state: 'merged' },
    });
  });

  it('when main moved on, then a merge commit with the merged tree, parents (target, source), the merger as author and committer, and the seed message', async () => {
    const r = await makeRepo();
    await open(r);
    const target = await advanceMain(r);
    const source = await tip(r, 'feature');
    const before = Math.floor(Date.now() / 1000);
    const res = await call(r, 'POST', '/merge-requests/1/merge');
    expect(res.status).toBe(200);
    expect(res.body.strategy).toBe('merge-commit');
    const sha = res.body.sha as string;
    expect(await tip(r, 'main')).toBe(sha);
    const raw = await git(r.bare, 'cat-file', '-p', sha);
    const [headers, message] = [raw.slice(0, raw.indexOf('\n\n')), raw.slice(raw.indexOf('\n\n') + 2)];
    const lines = headers.split('\n');
    expect(lines.filter((l) => l.startsWith('parent '))).toEqual([`parent ${target}`, `parent ${source}`]);
    const author = /^author bob <bob@example\.com> (\d+) \+0000$/.exec(lines.find((l) => l.startsWith('author '))!);
    expect(author).not.toBeNull();
    expect(Number(author![1])).toBeGreaterThanOrEqual(before);
    expect(lines.find((l) => l.startsWith('committer '))).toBe(`committer bob <bob@example.com> ${author![1]} +0000`);
    expect(message).toBe("Merge branch 'feature' into main\n");
    // CONTRACT §6: the merged tree keeps main's newer README and the source's changes
    expect(await git(r.bare, 'show', `${sha}:README.md`)).toBe('hello again\n');
    expect(await git(r.bare, 'show', `${sha}:a.txt`)).toBe('one\ntwo\nthree\nfour\n');
    const tree = /^tree ([0-9a-f]{40})$/m.exec(headers)![1];
    expect(tree).toBe((await git(r.wd, 'merge-tree', '--write-tree', target, source)).trim().split('\n')[0]);
  });

  it('when the branches conflict, then 409 with the paths, main unchanged, and the detail says mergeable false', async () => {
    const r = await makeRepo();
    await open(r);
    const target = await advanceMain(r, { 'a.txt': 'ONE\n' });
    expect(await call(r, 'POST', '/merge-requests/1/merge')).toEqual({ status: 409, body: { error: 'Merge conflict', conflicts: ['a.txt'] } });
    expect(await tip(r, 'main')).toBe(target);
    expect((await call(r, 'GET', '/merge-requests/1')).body).toMatchObject({ state: 'open', mergeable: false, conflicts: ['a.txt'] });
  });

  it('when 10 merges of one merge request race, then one 200, nine `Merge request is not open`, main moved once', async () => {
    const r = await makeRepo();
    await open(r);
    const target = await advanceMain(r);
    const results = await Promise.all(Array.from({ length: 10 }, () => call(r, 'POST', '/merge-requests/1/merge')));
    expect(results.filter((x) => x.status === 200)).toHaveLength(1);
    expect(results.filter((x) => x.status === 409 && x.body.error === 'Merge request is not open')).toHaveLength(9);
    const sha = results.find((x) => x.status === 200)!.body.sha as string;
    expect(await tip(r, 'main')).toBe(sha);
    expect((await git(r.bare, 'rev-parse', `${sha}^1`)).trim()).toBe(target);
  });

  it('when a push lands on main between the merge computation and the ref move, then 409 `Target branch changed; retry the merge` and the pushed commit stays', async () => {
    const r = await makeRepo();
    await open(r);
    let pushed = '';
    await stack.restart({
      storage: interceptUpdateRef(stack.storage.client, async () => {
        if (!pushed) pushed = await advanceMain(r);
      }),
    });
    try {
      expect(await call(r, 'POST', '/merge-requests/1/merge')).toEqual({ status: 409, body: { error: 'Target branch changed; retry the merge' } });
      expect(await tip(r, 'main')).toBe(pushed);
      const retry = await call(r, 'POST', '/merge-requests/1/merge');
      expect(retry.body.strategy).toBe('merge-commit');
      expect((await git(r.bare, 'rev-parse', `${retry.body.sha as string}^1`)).trim()).toBe(pushed);
    } finally {
      await stack.restart();
    }
  });

  it('when the process died after the ref move but before the transaction, then a restart completes the merge', async () => {
    const r = await makeRepo();
    const created = await open(r);
    const source = await tip(r, 'feature');
    // The crash, simulated: claim and plan written, ref moved, transaction never run.
    const db = await claimFastForward(created.body.id as string, r, source, 'crashed');
    await git(r.bare, 'update-ref', 'refs/heads/main', source, r.base);
    stack.storage.service.context.refs.invalidate(r.bare);
    // It still reads open: the answer names the merge in progress, not "not open".
    expect(await call(r, 'POST', '/merge-requests/1/merge')).toEqual({ status: 409, body: { error: 'A merge of this merge request is in progress; retry shortly' } });
    expect((await call(r, 'GET', '/merge-requests/1')).body).toMatchObject({ state: 'open' });

    await stack.restart({ recovery: { graceMs: 0, intervalMs: 3600_000 } });
    await stack.restart();
    await db.close();
    expect((await call(r, 'GET', '/merge-requests/1')).body).toMatchObject({ state: 'merged', merged_sha: source, merged_by: 'u-bob' });
    expect((await call(r, 'GET', '/activity')).body.map((a) => a.action)).toEqual(['merge_mr', 'create_mr']);
    await waitFor(() => stack.events.some((e) => e.repository.id === r.id && isMerged(e)));
    expect(stack.events.find((e) => e.repository.id === r.id && isMerged(e))).toMatchObject({ request_id: 'crashed', payload: { merge_request: { number: 1, title: 'Feature', state: 'merged' } } });
  });

  it('when the process died before the ref move, then a restart drops the claim and the merge can be retried', async () => {
    const r = await makeRepo();
    const created = await open(r);
    const db = await claimFastForward(created.body.id as string, r, await tip(r, 'feature'), null);
    await db.close();
    await stack.restart({ recovery: { graceMs: 0, intervalMs: 3600_000 } });
    expect((await call(r, 'GET', '/merge-requests/1')).body.state).toBe('open');
    expect((await call(r, 'POST', '/merge-requests/1/merge')).status).toBe(200);
    await stack.restart();
  });

  it('when the process that held a merge died, then with default recovery settings the merge request is mergeable again within seconds of the restart', async () => {
    const r = await makeRepo();
    const created = await open(r);
    // The dead process: claimed and planned, then gone without a heartbeat.
    const db = await claimFastForward(created.body.id as string, r, await tip(r, 'feature'), null, { heartbeatMs: 3_600_000 });
    await db.close();
    await stack.restart({ recovery: {} });
    try {
      let last = 0;
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        last = (await call(r, 'POST', '/merge-requests/1/merge')).status;
        if (last === 200) break;
        await new Promise((res) => setTimeout(res, 500));
      }
      expect(last).toBe(200);
      expect((await call(r, 'GET', '/merge-requests/1')).body).toMatchObject({ state: 'merged', merged_sha: await tip(r, 'feature') });
    } finally {
      await stack.restart();
    }
  });

  it('when the answer to the ref move is lost and git-storage stops answering, then 503 "outcome unknown", and once it answers again the merge is completed by recovery before a dead process\'s grace', async () => {
    const r = await makeRepo();
    await open(r);
    const source = await tip(r, 'feature');
    await stack.restart({ storage: loseUpdateRefAnswer(stack.storage.client, 1_000), recovery: {} });
    try {
      expect(await call(r, 'POST', '/merge-requests/1/merge')).toEqual({ status: 503, body: { error: 'Merge outcome unknown; it will be completed or undone shortly' } });
      const left = Date.now();
      expect(await tip(r, 'main')).toBe(source); // the move itself happened
      let state = '';
      while (Date.now() - left < INTENT_STALE_AFTER_MS && state !== 'merged') {
        state = (await call(r, 'GET', '/merge-requests/1')).body.state as string;
        if (state !== 'merged') await new Promise((res) => setTimeout(res, 200));
      }
      // A dead process's intent waits INTENT_STALE_AFTER_MS; this one was given up by a live merge.
      expect(state).toBe('merged');
      expect((await call(r, 'GET', '/merge-requests/1')).body).toMatchObject({ merged_sha: source, merged_by: 'u-bob' });
      await waitFor(() => stack.events.some((e) => e.repository.id === r.id && isMerged(e)));
    } finally {
      await stack.restart();
    }
  });

  it('when probed, then ready with its database, bus, git-storage and accounts, and merges are counted in /metrics', async () => {
    const r = await makeRepo();
    await open(r);
    expect((await call(r, 'POST', '/merge-requests/1/merge')).status).toBe(200);
    expect(await call(r, 'POST', '/merge-requests/1/merge')).toMatchObject({ status: 409 });
    expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(stack.metricsUrl)).text();
    expect(metrics).toMatch(/githost_merge_requests_merges_total\{outcome="fast-forward",service="merge-requests"\} [1-9]/);
    expect(metrics).toMatch(/githost_merge_requests_merges_total\{outcome="conflict",service="merge-requests"\} [1-9]/);
    // gRPC calls to git-storage by method and code; the outbox drained by the relay
    expect(metrics).toMatch(/^githost_merge_requests_grpc_client_handled_seconds_count\{[^}]*method="UpdateRef",code="OK"[^}]*\} [1-9]/m);
    // the relay publishes after the commit, so the backlog reaches 0 shortly after the merge answers
    let backlog = metrics;
    for (let i = 0; i < 200 && !/^githost_merge_requests_outbox_backlog_events\{[^}]*\} 0$/m.test(backlog); i++) {
      await new Promise((r) => setTimeout(r, 25));
      backlog = await (await fetch(stack.metricsUrl)).text();
    }
    expect(backlog).toMatch(/^githost_merge_requests_outbox_backlog_events\{[^}]*\} 0$/m);
  });
});
