import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { grpc } from '@githost/grpc';
import { accountsProto, storageProto, type AccountsServiceClient, type StorageServiceClient } from '@githost/protos';
import { api, commitFiles, createRepo, createUser, git, makeWorkdir, pushUrl, startTestGithost, type TestGithost, type TestRepo, type TestUser } from './support/index.js';

/** What a local user of the machine could try against the loopback gRPC ports, and what it finds on disk. */
let gh: TestGithost;
let alice: TestUser;
let repo: TestRepo;
let tip: string;
let storage: StorageServiceClient;
let accounts: AccountsServiceClient;
let umask: number;

beforeAll(async () => {
  // A shell's usual umask: private modes must come from githost, not from whoever started it.
  umask = process.umask(0o022);
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  repo = await createRepo(gh, alice.token, 'hidden', { private: true });
  const work = makeWorkdir();
  tip = await commitFiles(work, { 'secret.txt': 'the launch codes\n' }, 'first');
  await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'hidden'), 'HEAD:refs/heads/main');
  storage = new (storageProto().githost.storage.v1.StorageService)(gh.grpcAddresses.gitStorage, grpc.credentials.createInsecure());
  accounts = new (accountsProto().githost.accounts.v1.AccountsService)(gh.grpcAddresses.accounts, grpc.credentials.createInsecure());
  // Booting every service (PGlite included) takes seconds, more on a loaded machine.
}, 120_000);

afterAll(async () => {
  storage?.close();
  accounts?.close();
  await gh?.stop();
  process.umask(umask);
});

const branches = async () => (await api<{ branches: { name: string }[] }>(gh, 'GET', '/api/repos/alice/hidden/branches', { token: alice.token })).body.branches.map((b) => b.name);

describe('internal gRPC ports reached directly, without a credential', () => {
  it('when git-storage is asked to create a branch, read a blob or remove the repository, then each is UNAUTHENTICATED and the repository is unchanged', async () => {
    const code = (run: (cb: (err: grpc.ServiceError | null) => void) => void) => new Promise<number>((resolve) => run((err) => resolve(err ? err.code : grpc.status.OK)));
    const update = await code((cb) => storage.UpdateRef({ repository_id: repo.id, ref: 'refs/heads/evil', new_oid: tip, old_oid: '0'.repeat(40), context: { owner: 'alice', name: 'hidden', pusher: 'mallory', request_id: '' } }, cb));
    const removal = await code((cb) => storage.RemoveRepository({ repository_id: repo.id }, cb));
    const read = await new Promise<{ code: number; chunks: number }>((resolve) => {
      let chunks = 0;
      const stream = storage.ReadBlob({ repository_id: repo.id, commit_oid: tip, path: 'secret.txt' });
      stream.on('data', () => chunks++);
      stream.on('error', (err: grpc.ServiceError) => resolve({ code: err.code, chunks }));
      stream.on('end', () => resolve({ code: grpc.status.OK, chunks }));
    });
    expect([update, removal, read]).toEqual([grpc.status.UNAUTHENTICATED, grpc.status.UNAUTHENTICATED, { code: grpc.status.UNAUTHENTICATED, chunks: 0 }]);
    expect(await branches()).toEqual(['main']);
    expect((await api(gh, 'GET', '/api/repos/alice/hidden/blob/main/secret.txt', { token: alice.token })).body).toMatchObject({ content: 'the launch codes\n' });
  });

  it('when accounts is asked to Authorize as the bootstrap admin or for users’ e-mail addresses, then both are UNAUTHENTICATED', async () => {
    const authorize = await new Promise<{ code: number; permission?: string }>((resolve) =>
      accounts.Authorize({ user_id: '', bootstrap_admin: true, owner: 'alice', name: 'hidden' }, (err, res) => resolve(err ? { code: err.code } : { code: grpc.status.OK, permission: res?.permission })),
    );
    const users = await new Promise<{ code: number; users?: unknown[] }>((resolve) =>
      accounts.GetUsers({ ids: [], usernames: ['alice'] }, (err, res) => resolve(err ? { code: err.code } : { code: grpc.status.OK, users: res?.users })),
    );
    expect([authorize, users]).toEqual([{ code: grpc.status.UNAUTHENTICATED }, { code: grpc.status.UNAUTHENTICATED }]);
  });
});

describe('DATA_DIR after a push', () => {
  it('when every file and directory is stat-ed, then directories are 0700, files 0600 (git objects 0400), hooks 0700', () => {
    const modes: [string, number][] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        const st = lstatSync(full);
        const rel = path.relative(gh.dataDir, full);
        modes.push([st.isDirectory() ? `${rel}/` : rel, st.mode & 0o777]);
        if (st.isDirectory()) walk(full);
      }
    };
    modes.push(['./', lstatSync(gh.dataDir).mode & 0o777]);
    walk(gh.dataDir);
    const names = modes.map(([n]) => n);
    // The walk saw the repositories, the hooks, the embedded databases and the admin token's neighbours.
    expect(names).toEqual(expect.arrayContaining(['repos/', 'hooks/', 'hooks/pre-receive', 'db/', 'db/shared/']));
    expect(names.some((n) => /^repos\/@hashed\/.+\.git\/objects\/[0-9a-f]{2}\/[0-9a-f]{38}$/.test(n))).toBe(true);
    expect(names.some((n) => n.startsWith('db/shared/') && !n.endsWith('/'))).toBe(true);
    const wrong = modes.filter(([name, mode]) => (name.endsWith('/') || name.startsWith('hooks/') ? mode !== 0o700 : mode !== 0o600 && mode !== 0o400));
    expect(wrong.map(([name, mode]) => `${name} ${mode.toString(8)}`)).toEqual([]);
  });
});
