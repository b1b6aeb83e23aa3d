import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { encodeIdentity, type Identity } from '@githost/identity';
import { eventually } from '@githost/test-support';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

/**
 * services/accounts/README.md#default-branch, git-storage's side: after a push that created a repository's
 * first branches, accounts is told (AdoptPushedBranches) before the push's events are journaled;
 * when it cannot be told, the push still goes through and the write-ahead record stays until it
 * can.
 */

let s: TestStorage;

function headers(id: string): string[] {
  const identity: Identity = {
    principal: { user_id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false },
    repo: { id, owner: 'alice', name: id, default_branch: 'main', private: false, shard: 'default', permission: 'write', owner_id: 'u-alice' },
    request_id: `req-${id}`,
    issued_at: Date.now(),
  };
  return Object.entries(encodeIdentity(identity, s.secret)).flatMap(([k, v]) => ['-c', `http.extraHeader=${k}: ${v}`]);
}

const url = (id: string) => `http://127.0.0.1:${s.httpPort}/alice/${id}.git`;
const pendingRecords = () => readdir(path.join(s.dataDir, 'pending'));

beforeAll(async () => {
  s = await startTestStorage();
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

describe('a first push and the default branch', () => {
  it('when master and dev are pushed to an empty repository, then accounts is told both before the events are journaled; a later branch tells it nothing', async () => {
    await createTestRepository(s, 'first');
    const w = await makeWorkdir();
    await writeFiles(w, { 'a.txt': 'one\n' });
    await commitAll(w, 'one');
    await git(w, ...headers('first'), 'push', '-q', url('first'), 'main:refs/heads/master', 'main:refs/heads/dev');
    expect(s.policies!.adoptions()).toEqual(['first master,dev']);
    expect((await s.service.journal.pending()).map((e) => (e.payload as { ref: string }).ref)).toEqual(['refs/heads/master', 'refs/heads/dev']);
    expect(await pendingRecords()).toEqual([]);

    await git(w, ...headers('first'), 'push', '-q', url('first'), 'main:refs/heads/later');
    expect(s.policies!.adoptions()).toEqual(['first master,dev']);
  });

  it('when accounts cannot be asked, then the push still succeeds with its events, and the record stays until accounts answers', async () => {
    await createTestRepository(s, 'down');
    const w = await makeWorkdir();
    await writeFiles(w, { 'a.txt': 'one\n' });
    await commitAll(w, 'one');
    // The push's own protection read succeeds: only the adoption fails.
    const before = s.policies!.adoptions().length;
    s.policies!.failAdoptions('down', true);
    await git(w, ...headers('down'), 'push', '-q', url('down'), 'main:refs/heads/master');
    expect(s.policies!.adoptions().slice(before)).toEqual(['down master']);
    expect((await s.service.journal.pending()).some((e) => e.repository.id === 'down')).toBe(true);
    expect(await pendingRecords()).toHaveLength(1);

    s.policies!.failAdoptions('down', false);
    await eventually(async () => ((await pendingRecords()).length === 0 ? true : undefined), 20_000);
    expect(s.policies!.adoptions().slice(before).every((a) => a === 'down master')).toBe(true);
  });
});
