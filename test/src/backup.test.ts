import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { removeBrokerTopology } from '@githost/bus/testing';
import { createTestDatabase } from '@githost/db';
import { startGithost, type RunningGithost } from '@githost/launcher';
import { api, commitFiles, createRepo, createUser, eventually, git, makeWorkdir, pushUrl, startReceiver, startTestGithost, type Receiver, type TestGithost, type TestUser } from './support/index.js';
import { repositoryRoot } from './support/repository-files.js';

/**
 * `npm run backup` while githost serves, then `npm run restore` into a new DATA_DIR and database
 * (docs/decisions/backup.md): pushes and a merge land between the database snapshot and the refs,
 * and the restored githost agrees with its refs, has every ref of the manifest, fscks clean, and
 * its tokens and webhooks work.
 */
jest.setTimeout(240_000);

interface Manifest {
  database: { kind: string };
  repositories: { path: string; refs: Record<string, string>; head: string | null }[];
  lfs: { path: string; sha256: string }[];
}

let gh: TestGithost;
let alice: TestUser;
let receiver: Receiver;
const scratch = mkdtempSync(path.join(tmpdir(), 'githost-backup-test-'));
const backupDir = path.join(scratch, 'backup');
const pause = path.join(scratch, 'pause');
let restored: RunningGithost | undefined;
let restoredDb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
const restoredDataDir = path.join(scratch, 'restored-data');
const suffix = `${process.pid}.${randomBytes(4).toString('hex')}`;
const exchange = `githost.events.e2e-restored.${suffix}`;
const queue = (q: string) => `githost.${q}.e2e-restored.${suffix}`;
const queues = { webhooks: queue('webhooks'), mergeRequests: queue('merge-requests'), accounts: queue('accounts') };
const amqpUrl = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';

function script(name: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repositoryRoot, 'scripts', name), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${name} exited ${code}: ${out}`))));
  });
}

beforeAll(async () => {
  gh = await startTestGithost({ backend: 'real' });
  alice = await createUser(gh, 'alice');
  receiver = await startReceiver();
}, 180_000);
afterAll(async () => {
  await restored?.stop();
  await restoredDb?.drop();
  await removeBrokerTopology(amqpUrl, exchange, Object.values(queues)).catch(() => undefined);
  await receiver?.close();
  await gh?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const mr = (base: string, n: number, g: { url: string } = gh) => api(g, 'GET', `${base}/merge-requests/${n}`, { token: alice.token });

describe('backup while serving, restore on a fresh machine', () => {
  it('when refs move between the database snapshot and the refs, then the restore reconciles the merge requests and everything works', async () => {
    const base = '/api/repos/alice/kept';
    await createRepo(gh, alice.token, 'kept');
    const hook = await api(gh, 'POST', `${base}/webhooks`, { token: alice.token, body: { url: receiver.url } });
    expect(hook.status).toBe(201);
    const wd = makeWorkdir();
    const remote = pushUrl(gh, 'alice', alice.token, 'alice', 'kept');
    await commitFiles(wd, { 'README.md': 'hello\n' }, 'initial');
    for (const b of ['one', 'two', 'three']) {
      await git(wd, 'checkout', '-q', '-b', b, 'main');
      await commitFiles(wd, { [`${b}.txt`]: `${b}\n` }, `add ${b}`);
    }
    await git(wd, 'push', '-q', remote, 'main', 'one', 'two', 'three');
    for (const b of ['one', 'two', 'three']) {
      const opened = await api(gh, 'POST', `${base}/merge-requests`, { token: alice.token, body: { title: `Add ${b}`, source_branch: b, target_branch: 'main' } });
      expect(opened.status).toBe(201);
    }
    // An LFS object, saved with its checksum.
    const lfs = Buffer.from(`large file ${suffix}\n`);
    const oid = createHash('sha256').update(lfs).digest('hex');
    const basic = { authorization: `Basic ${Buffer.from(`alice:${alice.token}`).toString('base64')}` };
    expect((await fetch(`${gh.url}/alice/kept.git/info/lfs/objects/${oid}`, { method: 'PUT', headers: basic, body: lfs })).status).toBe(200);
    // Merged before the backup: in the database snapshot.
    expect((await api(gh, 'POST', `${base}/merge-requests/1/merge`, { token: alice.token })).status).toBe(200);

    writeFileSync(pause, '');
    const backup = script('backup.mjs', [backupDir], { DATA_DIR: gh.dataDir, DATABASE_URL: gh.databaseUrl!, GITHOST_BACKUP_TEST_PAUSE: pause });
    await eventually(() => existsSync(`${pause}.paused`) || undefined);
    // The database is saved; these land before the refs are read: the refs are ahead of it.
    const merged2 = await api(gh, 'POST', `${base}/merge-requests/2/merge`, { token: alice.token });
    expect(merged2.status).toBe(200);
    await git(wd, 'checkout', '-q', 'three');
    const three = await commitFiles(wd, { 'three.txt': 'three, again\n' }, 'three again');
    await git(wd, 'push', '-q', remote, 'three');
    rmSync(pause);
    await backup;
    // After the refs were read: not in the backup.
    await git(wd, 'push', '-q', remote, 'three:after-backup');

    const manifest = JSON.parse(readFileSync(path.join(backupDir, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest.database.kind).toBe('postgres');
    const kept = manifest.repositories.find((r) => r.refs['refs/heads/three'])!;
    expect(kept.refs['refs/heads/three']).toBe(three);
    expect(kept.refs['refs/heads/main']).toBe(merged2.body.sha);
    expect(kept.refs['refs/heads/after-backup']).toBeUndefined();
    expect(manifest.lfs.map((o) => o.sha256)).toContain(oid);

    // A fresh machine: a new DATA_DIR and a new database (the old one keeps serving).
    restoredDb = await createTestDatabase('githost_restored');
    const out = await script('restore.mjs', [backupDir], { DATA_DIR: restoredDataDir, DATABASE_URL: restoredDb.url });
    expect(out).toContain('1 synchronized, 1 merged');
    restored = await startGithost({
      port: 0, metricsPort: 0, sshPort: 0, dataDir: restoredDataDir, adminToken: gh.adminToken, databaseUrl: restoredDb.url, amqpUrl,
      env: { GITHOST_WEBHOOK_ALLOW_PRIVATE: 'true', GITHOST_WEBHOOK_RETRY_BASE_MS: '50', AMQP_URL: '', DATABASE_URL: '', GITHOST_EVENTS_EXCHANGE: exchange, GITHOST_WEBHOOKS_QUEUE: queues.webhooks, GITHOST_MERGE_REQUESTS_QUEUE: queues.mergeRequests, GITHOST_ACCOUNTS_QUEUE: queues.accounts },
    });
    const r = { url: `http://127.0.0.1:${restored.port}`, port: restored.port };

    // Every ref of the manifest is there (through the gateway, with the old token), fsck clean.
    const listed = await git(wd, 'ls-remote', pushUrl(r, 'alice', alice.token, 'alice', 'kept'));
    const refs = Object.fromEntries(listed.trim().split('\n').map((l) => l.split('\t').reverse()));
    for (const [name, sha] of Object.entries(kept.refs)) expect(refs[name]).toBe(sha);
    for (const repo of manifest.repositories) {
      execFileSync('git', ['-C', path.join(restoredDataDir, repo.path), 'fsck', '--no-progress'], { stdio: 'pipe' });
    }
    // Every merge request agrees with its refs.
    const [one, two, threeMr] = [await mr(base, 1, r), await mr(base, 2, r), await mr(base, 3, r)];
    expect(one.body).toMatchObject({ state: 'merged' });
    expect(two.body).toMatchObject({ state: 'merged', merged_sha: merged2.body.sha });
    expect(threeMr.body).toMatchObject({ state: 'open', head_sha: three, source_sha: three, target_sha: merged2.body.sha });
    const restoredRepo = path.join(restoredDataDir, kept.path);
    const contains = (a: string, b: string) => {
      try {
        execFileSync('git', ['-C', restoredRepo, 'merge-base', '--is-ancestor', a, b], { stdio: 'pipe' });
        return true;
      } catch {
        return false;
      }
    };
    for (const m of [one.body, two.body, threeMr.body]) {
      // merged: the target holds the merge; open: the head is the source tip and not in the target.
      if (m.state === 'merged') expect(contains(m.merged_sha, m.target_sha)).toBe(true);
      else expect([m.head_sha === m.source_sha, contains(m.head_sha, m.target_sha)]).toEqual([true, false]);
    }
    // The LFS object is served.
    const got = await fetch(`${r.url}/alice/kept.git/info/lfs/objects/${oid}`, { headers: basic });
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(lfs)).toBe(true);
    // The webhook works: a push to the restored githost is delivered.
    await git(wd, 'push', '-q', pushUrl(r, 'alice', alice.token, 'alice', 'kept'), 'three:after-restore');
    await eventually(() => receiver.received.find((d) => d.body.event === 'push' && d.body.ref === 'refs/heads/after-restore'));
    // Merging the reconciled open one works and moves main.
    const merged3 = await api(r, 'POST', `${base}/merge-requests/3/merge`, { token: alice.token });
    expect(merged3.status).toBe(200);
  });
});


describe('backup of the embedded database', () => {
  it('when githost on PGlite is stopped, then its backup restores into a new DATA_DIR with users, tokens, repositories and merge requests', async () => {
    const env = { DATABASE_URL: '', AMQP_URL: '', GITHOST_WEBHOOK_ALLOW_PRIVATE: 'true' };
    const oldDir = path.join(scratch, 'embedded-data');
    const newDir = path.join(scratch, 'embedded-restored');
    const dir = path.join(scratch, 'embedded-backup');
    const adminToken = `e2e-admin-${randomBytes(16).toString('hex')}`;
    const first = await startGithost({ port: 0, metricsPort: 0, sshPort: 0, dataDir: oldDir, adminToken, env });
    let second: RunningGithost | undefined;
    let running = true;
    try {
      const g = { url: `http://127.0.0.1:${first.port}`, port: first.port, adminToken } as TestGithost;
      const bob = await createUser(g, 'bob');
      await createRepo(g, bob.token, 'small');
      const wd = makeWorkdir();
      const tip = await commitFiles(wd, { 'README.md': 'small\n' }, 'initial');
      await git(wd, 'checkout', '-q', '-b', 'topic');
      const topic = await commitFiles(wd, { 'topic.txt': 'topic\n' }, 'topic');
      await git(wd, 'push', '-q', pushUrl(g, 'bob', bob.token, 'bob', 'small'), 'main', 'topic');
      expect((await api(g, 'POST', '/api/repos/bob/small/merge-requests', { token: bob.token, body: { title: 'Topic', source_branch: 'topic', target_branch: 'main' } })).status).toBe(201);

      // An open embedded database is refused: PGlite is one process's.
      await expect(script('backup.mjs', [path.join(scratch, 'refused')], { DATA_DIR: oldDir, DATABASE_URL: '' })).rejects.toThrow(/the embedded database shared is open: stop githost first/);
      await first.stop();
      running = false;
      await script('backup.mjs', [dir], { DATA_DIR: oldDir, DATABASE_URL: '' });
      const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest & { database: { dumps: { name: string }[] } };
      expect(manifest.database).toMatchObject({ kind: 'pglite', dumps: [expect.objectContaining({ name: 'shared' })] });
      expect(manifest.repositories.map((r) => r.refs)).toEqual([{ 'refs/heads/main': tip, 'refs/heads/topic': topic }]);
      await script('restore.mjs', [dir], { DATA_DIR: newDir, DATABASE_URL: '' });

      second = await startGithost({ port: 0, metricsPort: 0, sshPort: 0, dataDir: newDir, adminToken, env });
      const h = { url: `http://127.0.0.1:${second.port}`, port: second.port };
      const detail = await api(h, 'GET', '/api/repos/bob/small/merge-requests/1', { token: bob.token });
      expect(detail.body).toMatchObject({ state: 'open', title: 'Topic', source_sha: topic, target_sha: tip, author_username: 'bob' });
      const merged = await api(h, 'POST', '/api/repos/bob/small/merge-requests/1/merge', { token: bob.token });
      expect(merged.status).toBe(200);
      expect((await git(wd, 'ls-remote', pushUrl(h, 'bob', bob.token, 'bob', 'small'), 'refs/heads/main')).split('\t')[0]).toBe(merged.body.sha);
    } finally {
      await second?.stop();
      if (running) await first.stop();
    }
  });
});
