import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { removeBrokerTopology, TEST_AMQP_URL, uniqueTestName } from '@githost/bus/testing';
import { ConfigError } from '@githost/config';
import { createTestDatabase } from '@githost/db';
import { generateSshKey } from '@githost/test-support';
import { startGithost, type RunningGithost, type ServiceProcess } from './index.js';

// GITHOST_PROCESS_PER_SERVICE against the real Postgres and RabbitMQ: every service a child process.
const LAUNCHER_DIR = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const exchange = uniqueTestName('launcher', 'events');
const queue = uniqueTestName('launcher', 'webhooks');
const mergeRequestsQueue = uniqueTestName('launcher', 'merge-requests');
const accountsQueue = uniqueTestName('launcher', 'accounts');
const dirs: string[] = [];
const databases: { drop(): Promise<void> }[] = [];

beforeAll(() => {
  // The children run the built child entry (plain node): build it from these sources.
  execFileSync(process.execPath, [path.join(LAUNCHER_DIR, '..', 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(LAUNCHER_DIR, 'tsconfig.build.json')], { stdio: 'inherit' });
});

afterAll(async () => {
  for (const db of databases) await db.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await removeBrokerTopology(TEST_AMQP_URL, exchange, [queue, mergeRequestsQueue, accountsQueue]);
});

async function options(): Promise<{ dataDir: string; databaseUrl: string; env: Record<string, string> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'githost-split-'));
  dirs.push(dir);
  const db = await createTestDatabase('githost_launcher');
  databases.push(db);
  return {
    dataDir: path.join(dir, 'data'),
    databaseUrl: db.url,
    env: { GITHOST_EVENTS_EXCHANGE: exchange, GITHOST_WEBHOOKS_QUEUE: queue, GITHOST_MERGE_REQUESTS_QUEUE: mergeRequestsQueue, GITHOST_ACCOUNTS_QUEUE: accountsQueue, GITHOST_WEBHOOK_ALLOW_PRIVATE: 'true', GITHOST_WEBHOOK_RETRY_BASE_MS: '50', GITHOST_ADMIN_TOKEN: '' },
  };
}

/** Alive and not a zombie (an orphan's exit may wait for a reaper that never comes). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function gone(pids: number[], withinMs = 30_000): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  while (pids.some(isRunning) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return pids.filter(isRunning);
}

const children = (processes: ServiceProcess[]) => processes.filter((p) => p.name !== 'launcher');

describe('one process per service', () => {
  let githost: RunningGithost;
  let childPids: number[];

  beforeAll(async () => {
    githost = await startGithost({ port: 0, metricsPort: 0, sshPort: 0, amqpUrl: TEST_AMQP_URL, processPerService: true, ...(await options()) });
    childPids = children(githost.processes).map((p) => p.pid);
  }, 90_000);

  afterAll(async () => {
    await githost?.stop();
  });

  it('when started, then the gateway and every service run in processes of their own', () => {
    expect(githost.processes.map((p) => p.name).sort()).toEqual(['accounts', 'browse', 'gateway', 'git-storage', 'gitea-api', 'launcher', 'merge-requests', 'ssh', 'web', 'webhooks']);
    expect(githost.processes.find((p) => p.name === 'launcher')?.pid).toBe(process.pid);
    expect(new Set(githost.processes.map((p) => p.pid)).size).toBe(10);
    expect(childPids.every(isRunning)).toBe(true);
    expect(githost.services).toEqual(expect.arrayContaining(['git-storage', 'accounts', 'ssh', 'browse', 'merge-requests', 'webhooks', 'web', 'gitea-api']));
  });

  it('when a user pushes with git, then browse shows the commit and the push event reaches her webhook across processes', async () => {
    const admin = { authorization: `Bearer ${githost.adminToken}`, 'content-type': 'application/json' };
    expect((await fetch(`${githost.url}/api/admin/users`, { method: 'POST', headers: admin, body: JSON.stringify({ username: 'splituser', email: 's@example.com' }) })).status).toBe(201);
    const { token } = (await (await fetch(`${githost.url}/api/admin/users/splituser/tokens`, { method: 'POST', headers: admin })).json()) as { token: string };
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    expect((await fetch(`${githost.url}/api/repos`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'split' }) })).status).toBe(201);

    const deliveries: { event: string | string[] | undefined; body: string }[] = [];
    const receiver = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        deliveries.push({ event: req.headers['x-githost-event'], body });
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const port = (receiver.address() as { port: number }).port;
      const hook = await fetch(`${githost.url}/api/repos/splituser/split/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: 'push' }) });
      expect(hook.status).toBe(201);

      const work = mkdtempSync(path.join(tmpdir(), 'githost-split-work-'));
      dirs.push(work);
      const git = (...args: string[]) => run('git', args, { cwd: work, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
      await git('init', '-q', '-b', 'main');
      await git('commit', '-q', '--allow-empty', '-m', 'first');
      const sha = (await git('rev-parse', 'HEAD')).stdout.trim();
      await git('push', '-q', `http://splituser:${token}@127.0.0.1:${githost.port}/splituser/split.git`, 'main');

      const branches = await fetch(`${githost.url}/api/repos/splituser/split/branches`);
      expect(branches.status).toBe(200);
      expect(((await branches.json()) as { branches: { name: string; sha: string }[] }).branches).toEqual([expect.objectContaining({ name: 'main', sha })]);
      // The site, from its own process, through the gateway's.
      const page = await fetch(`${githost.url}/splituser/split/-/commits/main`);
      expect([page.status, (await page.text()).includes(`/splituser/split/-/commit/${sha}`)]).toEqual([200, true]);

      const deadline = Date.now() + 20_000;
      while (!deliveries.some((d) => d.body.includes(sha)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(deliveries.find((d) => d.body.includes(sha))?.event).toBe('push');

      // git over SSH from the ssh service's own process, git run by git-storage's.
      const key = await generateSshKey('ed25519');
      const keyFile = path.join(work, 'ssh-key');
      writeFileSync(keyFile, key.privateKey, { mode: 0o600 });
      expect((await fetch(`${githost.url}/api/user/keys`, { method: 'POST', headers: auth, body: JSON.stringify({ key: key.publicKey }) })).status).toBe(201);
      const ssh = `ssh -i ${keyFile} -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -F /dev/null`;
      const cloned = await run('git', ['clone', '-q', `ssh://git@127.0.0.1:${githost.sshPort}/splituser/split.git`, 'over-ssh'], { cwd: work, env: { ...process.env, GIT_SSH_COMMAND: ssh } });
      expect(cloned.stderr).not.toContain('fatal');
      expect((await run('git', ['rev-parse', 'HEAD'], { cwd: path.join(work, 'over-ssh') })).stdout.trim()).toBe(sha);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  }, 60_000);

  it('when metrics are scraped, then each process serves its own service\'s on a metrics port of its own', async () => {
    const names = ['accounts', 'browse', 'gateway', 'git-storage', 'gitea-api', 'merge-requests', 'ssh', 'web', 'webhooks'];
    expect([Object.keys(githost.metricsPorts).sort(), new Set(Object.values(githost.metricsPorts)).size]).toEqual([names, 9]);
    for (const name of names) {
      const text = await (await fetch(`http://127.0.0.1:${githost.metricsPorts[name]}/metrics`)).text();
      const families = new Set([...text.matchAll(/^# TYPE githost_([a-z]+(?:_storage|_requests|_api)?)_/gm)].map((m) => m[1]));
      expect([name, [...families]]).toEqual([name, [name.replace(/-/g, '_')]]);
    }
  });

  it('when the metrics ports are reached from another address, then none answers: every one, the gateway\'s included, listens on 127.0.0.1 only', async () => {
    for (const [name, port] of Object.entries(githost.metricsPorts)) {
      const refused = await fetch(`http://127.0.0.2:${port}/metrics`).then((r) => `answered ${r.status}`, (err: Error & { cause?: { code?: string } }) => err.cause?.code);
      expect([name, refused]).toEqual([name, 'ECONNREFUSED']);
    }
  });

  it('when an anonymous sign-in body nests 20,000 levels deep, then 400 naming the limit here too', async () => {
    const res = await fetch(`${githost.url}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}` });
    expect([res.status, await res.json()]).toEqual([400, { error: 'JSON body nested deeper than 64 levels' }]);
  });

  it('when stopped, then no service process is left running', async () => {
    await githost.stop();
    expect(await gone(childPids)).toEqual([]);
  }, 60_000);
});

describe('one process per service, when a service process dies', () => {
  it('then the others are stopped and the launcher reports which one died', async () => {
    const githost = await startGithost({ port: 0, metricsPort: 0, sshPort: 0, amqpUrl: TEST_AMQP_URL, processPerService: true, ...(await options()) });
    try {
      const browse = githost.processes.find((p) => p.name === 'browse')!;
      process.kill(browse.pid, 'SIGKILL');
      expect((await githost.crashed).message).toMatch(/^browse \(pid \d+\) exited unexpectedly \(signal SIGKILL\)$/);
      expect(await gone(children(githost.processes).map((p) => p.pid))).toEqual([]);
    } finally {
      await githost.stop();
    }
  }, 90_000);
});

describe('one process per service, when the launcher itself is killed', () => {
  it('then its service processes notice and exit', async () => {
    const opts = await options();
    const launcher = spawn(process.execPath, [path.join(LAUNCHER_DIR, 'dist', 'main.js')], {
      env: { ...process.env, ...opts.env, NODE_ENV: 'production', LOG_LEVEL: 'info', PORT: '0', METRICS_PORT: '0', SSH_PORT: '0', DATA_DIR: opts.dataDir, DATABASE_URL: opts.databaseUrl, AMQP_URL: TEST_AMQP_URL, GITHOST_PROCESS_PER_SERVICE: 'true', GITHOST_ADMIN_TOKEN: randomBytes(16).toString('hex') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const started = await new Promise<{ processes: ServiceProcess[] }>((resolve, reject) => {
      let buffered = '';
      launcher.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        for (const line of buffered.split('\n')) if (line.includes('"githost started"')) resolve(JSON.parse(line) as { processes: ServiceProcess[] });
        buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
      });
      launcher.once('exit', (code) => reject(new Error(`the launcher exited with ${code} before starting`)));
    });
    launcher.stdout.resume();
    const pids = children(started.processes).map((p) => p.pid);
    expect(pids).toHaveLength(9);
    launcher.kill('SIGKILL');
    expect(await gone(pids)).toEqual([]);
  }, 90_000);
});

describe('one process per service without RabbitMQ', () => {
  it('when AMQP_URL is unset, then start is refused before anything runs, naming AMQP_URL', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'githost-split-'));
    dirs.push(dir);
    const attempt = startGithost({ port: 0, metricsPort: 0, dataDir: path.join(dir, 'data'), env: { GITHOST_PROCESS_PER_SERVICE: 'true', AMQP_URL: '', GITHOST_ADMIN_TOKEN: '' } });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(/needs AMQP_URL: the in-process event bus cannot carry events between processes/);
    expect(existsSync(path.join(dir, 'data'))).toBe(false); // not even the admin token was written
  });
});
