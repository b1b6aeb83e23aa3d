import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateSshKey, MACHINE_REDIS_URL, redisCli, removeRedisKeys } from '@githost/test-support';
import { api, createRepo, createUser, gitResultWithEnv, makeWorkdir, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/** One git budget per user over HTTP and SSH, counted in Redis (docs/decisions/shared-rate-limits.md#one-git-budget). */
const prefix = `githost-e2e:${randomUUID()}:`;
const LIMIT = 6;
let gh: TestGithost;
let alice: TestUser;
let keyDir: string;
let sshEnv: Record<string, string>;

beforeAll(async () => {
  gh = await startTestGithost({ env: { REDIS_URL: MACHINE_REDIS_URL, GITHOST_RATE_LIMIT_PREFIX: prefix, GITHOST_GIT_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  alice = await createUser(gh, 'alice');
  keyDir = mkdtempSync(path.join(tmpdir(), 'githost-e2e-shared-limits-'));
  const key = await generateSshKey('ed25519', { comment: 'alice' });
  const keyFile = path.join(keyDir, 'alice');
  writeFileSync(keyFile, key.privateKey, { mode: 0o600 });
  expect((await api(gh, 'POST', '/api/user/keys', { token: alice.token, body: { key: key.publicKey } })).status).toBe(201);
  await createRepo(gh, alice.token, 'demo');
  const options = ['-i', keyFile, '-p', String(gh.sshPort), '-o', 'IdentitiesOnly=yes', '-o', `UserKnownHostsFile=${path.join(keyDir, 'known_hosts')}`, '-o', 'StrictHostKeyChecking=accept-new', '-o', 'BatchMode=yes', '-F', '/dev/null'];
  sshEnv = { GIT_SSH_COMMAND: `ssh ${options.join(' ')}` };
}, 120_000);

afterAll(async () => {
  await gh?.stop();
  if (keyDir) rmSync(keyDir, { recursive: true, force: true });
  removeRedisKeys(MACHINE_REDIS_URL, prefix);
});

describe('the git budget with REDIS_URL', () => {
  it('when alice lists refs over SSH and then over HTTP, then both spend one budget, and once it is spent both transports refuse her', async () => {
    const overSsh = () => gitResultWithEnv(makeWorkdir(), sshEnv, 'ls-remote', `ssh://git@127.0.0.1:${gh.sshPort}/alice/demo.git`);
    const overHttp = async () => {
      const res = await fetch(`${gh.url}/alice/demo.git/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${Buffer.from(`alice:${alice.token}`).toString('base64')}` } });
      await res.arrayBuffer();
      return [res.status, res.headers.get('ratelimit-remaining')];
    };
    const ssh = [];
    for (let i = 0; i < 3; i++) ssh.push((await overSsh()).code);
    expect(ssh).toEqual([0, 0, 0]);
    // Three spent over SSH: HTTP has the other three.
    const http = [];
    for (let i = 0; i < 3; i++) http.push(await overHttp());
    expect(http).toEqual([[200, '2'], [200, '1'], [200, '0']]);

    const refusedSsh = await overSsh();
    expect([refusedSsh.code, refusedSsh.stderr]).toEqual([128, expect.stringContaining('Rate limit exceeded: too many git requests, try again in a minute')]);
    expect(await overHttp()).toEqual([429, '0']);
    expect(redisCli(MACHINE_REDIS_URL, 'GET', `${prefix}git:user:${alice.id}`)).toBe(String(LIMIT + 2));
  }, 120_000);
});
