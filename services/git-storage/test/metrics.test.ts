import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { encodeIdentity } from '@githost/identity';
import { sample } from '@githost/test-support';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, rpc, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

const ID = 'repo-metrics';
let s: TestStorage;

beforeAll(async () => {
  // No bus: pushed events stay in the journal, which is what the backlog gauge reports.
  s = await startTestStorage();
  await createTestRepository(s, ID);
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

describe('git-storage metrics', () => {
  it('when gRPC calls succeed and fail and a push is journaled without a bus, then /metrics counts calls by method and code and the journal backlog', async () => {
    const work = await makeWorkdir();
    await writeFiles(work, { 'a.txt': 'one\n' });
    await commitAll(work, 'first\n');
    const identity = { principal: { user_id: 'u1', username: 'alice', email: 'a@example.com', is_admin: false }, repo: { id: ID, owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission: 'write' as const, owner_id: 'u1' }, request_id: 'req-m', issued_at: Date.now() };
    const headers = Object.entries(encodeIdentity(identity, s.secret)).flatMap(([k, v]) => ['-c', `http.extraHeader=${k}: ${v}`]);
    await git(work, ...headers, 'push', `http://127.0.0.1:${s.httpPort}/alice/demo.git`, 'main');

    await rpc(s.client, s.client.ListRefs, { repository_id: ID }, { requestId: 'req-m' });
    await expect(rpc(s.client, s.client.ListRefs, { repository_id: 'missing' })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(rpc(s.client, s.client.CreateRepository, { repository_id: ID, default_branch: 'main' })).rejects.toMatchObject({ kind: 'conflict' });

    const text = await (await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`)).text();
    const calls = (method: string, code: string) => sample(text, 'githost_git_storage_grpc_server_handled_seconds_count', { method, code });
    expect([calls('ListRefs', 'OK'), calls('ListRefs', 'NOT_FOUND'), calls('CreateRepository', 'OK'), calls('CreateRepository', 'ALREADY_EXISTS')]).toEqual([1, 1, 1, 1]);
    expect(sample(text, 'githost_git_storage_journal_backlog_events')).toBe(1);
    const http = (route: string) => sample(text, 'githost_git_storage_http_request_duration_seconds_count', { route, status: '200' });
    expect([http('/:owner/:repo.git/info/refs'), http('/:owner/:repo.git/git-receive-pack')]).toEqual([1, 1]);
  });
});
