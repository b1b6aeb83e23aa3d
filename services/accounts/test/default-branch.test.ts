import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { startTestStorage, type TestStorage } from '@githost/git-storage/testing';
import { ADMIN_TOKEN, Client, SECRET, startAccounts, type Backend, type Harness } from './harness.js';
import { adoptPushedBranches } from './rpc.js';

/** services/accounts/README.md#default-branch: AdoptPushedBranches on the real service, with a real git-storage. */
describe.each<Backend>(['postgres', 'pglite'])('the default branch after a first push on %s', (backend) => {
  let storage: TestStorage;
  let h: Harness;
  let owner: Client;

  const headOf = (id: string) => execFileSync('git', [`--git-dir=${storage.repoPath(id)}`, 'symbolic-ref', 'HEAD']).toString().trim();

  beforeAll(async () => {
    storage = await startTestStorage({ secret: SECRET });
    h = await startAccounts(backend, storage.grpcAddress);
    const admin = new Client(h, ADMIN_TOKEN);
    expect((await admin.request('POST', '/api/admin/users', { username: 'olive', email: 'olive@example.test' })).status).toBe(201);
    owner = new Client(h, (await admin.request('POST', '/api/admin/users/olive/tokens', {})).body.token);
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await storage?.stop();
  });

  it('when git-storage reports a first push of master and dev, then the row and HEAD say master; asked again, nothing changes', async () => {
    const id = (await owner.request('POST', '/api/repos', { name: 'git' })).body.id as string;
    expect(await adoptPushedBranches(h.grpc, id, ['dev', 'master'])).toEqual({ default_branch: 'master' });
    expect((await owner.request('GET', '/api/repos/olive/git')).body.default_branch).toBe('master');
    expect(headOf(id)).toBe('refs/heads/master');
    expect(await adoptPushedBranches(h.grpc, id, ['dev', 'master'])).toEqual({ default_branch: 'master' });
  });

  it('when the push brought the configured default, then it stays', async () => {
    const id = (await owner.request('POST', '/api/repos', { name: 'trunk', default_branch: 'trunk' })).body.id as string;
    expect(await adoptPushedBranches(h.grpc, id, ['feature', 'trunk'])).toEqual({ default_branch: 'trunk' });
    expect(headOf(id)).toBe('refs/heads/trunk');
  });

  it('when the repository is unknown, then NOT_FOUND', async () => {
    await expect(adoptPushedBranches(h.grpc, '00000000-0000-0000-0000-000000000000', ['master'])).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
  });
});
