import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { removeBrokerTopology } from '@githost/bus/testing';
import { createTestDatabase } from '@githost/db';
import { startGithost } from '@githost/launcher';
import { api, commitFiles, createRepo, createUser, eventually, git, makeWorkdir, pushUrl, startReceiver, type Receiver, type TestGithost } from './support/index.js';
import { repositoryRoot } from './support/repository-files.js';

/**
 * Services are deployed one at a time (docs/decisions/proto-contracts.md): each service built from
 * HEAD runs against all the others built from the previous commit that changed a proto, one
 * process per service as deployed, and the smoke (push, browse, merge, webhook) passes in every
 * mix. The old build is made once per commit (git archive, npm ci, turbo build) and kept in
 * GITHOST_MIXED_VERSIONS_CACHE (default: the temp folder's githost-mixed-versions/).
 */
jest.setTimeout(300_000);

const SERVICES = ['git-storage', 'accounts', 'ssh', 'browse', 'merge-requests', 'webhooks', 'web', 'gateway'];
const amqpUrl = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
const run = (cmd: string, args: string[], cwd = repositoryRoot) => execFileSync(cmd, args, { cwd, encoding: 'utf8' }).trim();

/** The last commit before HEAD that changed a proto. */
const oldCommit = run('git', ['log', '-1', '--format=%H', 'HEAD~1', '--', 'protos/githost']);
const oldRoot = path.join(process.env.GITHOST_MIXED_VERSIONS_CACHE || path.join(tmpdir(), 'githost-mixed-versions'), oldCommit);
const oldChild = path.join(oldRoot, 'launcher', 'dist', 'child.js');
let receiver: Receiver;

beforeAll(() => {
  if (existsSync(oldChild)) return;
  rmSync(oldRoot, { recursive: true, force: true });
  mkdirSync(oldRoot, { recursive: true });
  execSync(`git archive ${oldCommit} | tar -x -C '${oldRoot}'`, { cwd: repositoryRoot, stdio: 'pipe' });
  execSync('npm ci --no-audit --no-fund && npx turbo run build --filter=@githost/launcher --output-logs=errors-only', { cwd: oldRoot, stdio: 'pipe' });
  expect(existsSync(oldChild)).toBe(true);
}, 1_800_000);
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

describe(`one service from HEAD, the others from ${oldCommit.slice(0, 12)} (the last proto change)`, () => {
  it.each(SERVICES)('when %s is the new one, then push, browse, merge and webhooks work', async (newOne) => {
    const suffix = `${process.pid}.${randomBytes(4).toString('hex')}`;
    const database = await createTestDatabase('githost_mixed');
    const exchange = `githost.events.mixed.${suffix}`;
    const queues = { webhooks: `githost.webhooks.mixed.${suffix}`, mergeRequests: `githost.merge-requests.mixed.${suffix}`, accounts: `githost.accounts.mixed.${suffix}` };
    const dataDir = path.join(tmpdir(), `githost-mixed-data-${suffix}`);
    // The old build's ssh makes a host key its ssh2 cannot read back about 4 times in 1,000 (HEAD's
    // host-keys.ts retries): OpenSSH's own keys, made first, are what every version reads.
    mkdirSync(path.join(dataDir, 'ssh'), { recursive: true, mode: 0o700 });
    for (const [type, file] of [['ed25519', 'ssh_host_ed25519_key'], ['rsa', 'ssh_host_rsa_key']] as const) {
      execFileSync('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '3072'] : []), '-N', '', '-C', '', '-f', path.join(dataDir, 'ssh', file)]);
    }
    const adminToken = `e2e-admin-${randomBytes(16).toString('hex')}`;
    const githost = await startGithost({
      port: 0, metricsPort: 0, sshPort: 0, dataDir, adminToken, databaseUrl: database.url, amqpUrl, processPerService: true,
      // A service the old build does not have yet (gitea-api) has no old version to run: HEAD's.
      childEntryFor: (module) => (module === newOne || !SERVICES.includes(module) ? undefined : oldChild),
      env: {
        GITHOST_WEBHOOK_ALLOW_PRIVATE: 'true', GITHOST_WEBHOOK_RETRY_BASE_MS: '50', DATABASE_URL: '', AMQP_URL: '',
        GITHOST_EVENTS_EXCHANGE: exchange, GITHOST_WEBHOOKS_QUEUE: queues.webhooks, GITHOST_MERGE_REQUESTS_QUEUE: queues.mergeRequests, GITHOST_ACCOUNTS_QUEUE: queues.accounts,
      },
    });
    try {
      const gh = { url: `http://127.0.0.1:${githost.port}`, port: githost.port, adminToken } as TestGithost;
      const user = `mix${randomBytes(3).toString('hex')}`;
      const alice = await createUser(gh, user);
      await createRepo(gh, alice.token, 'mixed');
      const base = `/api/repos/${user}/mixed`;
      expect((await api(gh, 'POST', `${base}/webhooks`, { token: alice.token, body: { url: `${receiver.url}/${newOne}`, events: 'push,merge_request' } })).status).toBe(201);
      const wd = makeWorkdir();
      await commitFiles(wd, { 'README.md': `mixed ${newOne}\n` }, 'initial');
      await git(wd, 'checkout', '-q', '-b', 'feature');
      await commitFiles(wd, { 'feature.txt': 'feature\n' }, 'feature');
      await git(wd, 'push', '-q', pushUrl(gh, user, alice.token, user, 'mixed'), 'main', 'feature');
      const tree = await api(gh, 'GET', `${base}/tree/feature`, { token: alice.token });
      expect([tree.status, JSON.stringify(tree.body)]).toEqual([200, expect.stringContaining('feature.txt')]);
      expect((await api(gh, 'POST', `${base}/merge-requests`, { token: alice.token, body: { title: 'Feature', source_branch: 'feature', target_branch: 'main' } })).status).toBe(201);
      const merged = await api(gh, 'POST', `${base}/merge-requests/1/merge`, { token: alice.token });
      expect(merged.status).toBe(200);
      expect((await api(gh, 'GET', `${base}/merge-requests/1`, { token: alice.token })).body).toMatchObject({ state: 'merged', target_sha: merged.body.sha });
      const mine = () => receiver.received.filter((d) => d.path === `/${newOne}`);
      await eventually(() => mine().find((d) => d.body.event === 'push' && d.body.ref === 'refs/heads/feature'));
      await eventually(() => mine().find((d) => d.body.event === 'merge_request' && d.body.action === 'merged'));
    } finally {
      await githost.stop();
      await database.drop();
      await removeBrokerTopology(amqpUrl, exchange, Object.values(queues)).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
