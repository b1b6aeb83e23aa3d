import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, startReceiver, type Receiver } from '@githost/test-support';
import { api } from './support/api.js';
import { git, gitResult, makeWorkdir, removeWorkdirs } from './support/git.js';

/**
 * `npm start` as a user runs it (one process, PGlite on a thread of its own, the in-process bus)
 * killed with SIGKILL while comments, repositories and pushes are being written, then started
 * again on the same DATA_DIR, three times: whatever was acknowledged before a kill is there after
 * it, and every acknowledged push reaches its webhook (docs/embedded-mode.md#a-killed-process).
 */
const LAUNCHER_MAIN = fileURLToPath(new URL('../../launcher/dist/main.js', import.meta.url));
const ADMIN_TOKEN = 'embedded-kill-admin-token-0123456789';
/** After how long each round's writes are cut off by the kill. */
const KILL_AFTER_MS = [700, 1_500, 2_500];

let dataDir: string;
let receiver: Receiver;
let running: { child: ChildProcess; url: string; port: number } | undefined;

/** The launcher's built entry in a process group of its own, on a free port; resolves once it serves. */
async function start(): Promise<{ child: ChildProcess; url: string; port: number }> {
  const child = spawn(process.execPath, [LAUNCHER_MAIN], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      PORT: '0',
      METRICS_PORT: '0',
      SSH_PORT: '0',
      GITHOST_ADMIN_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: 'info',
      GITHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
      GITHOST_WEBHOOK_RETRY_BASE_MS: '50',
      GITHOST_RATE_LIMIT_PER_MINUTE: '100000',
      GITHOST_GIT_RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`githost did not start within 90 s: ${stderr}`)), 90_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n')) {
        if (!line.includes('"githost started"')) continue;
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    });
    child.once('exit', (code) => reject(new Error(`githost exited (${code}) while starting: ${stderr}`)));
  });
  child.stdout!.resume();
  return { child, url: `http://127.0.0.1:${port}`, port };
}

function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid!, 'SIGKILL');
  return exited;
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'githost-embedded-kill-'));
  receiver = await startReceiver({ answer: (_n, res) => void res.writeHead(204).end() });
}, 30_000);

afterAll(async () => {
  if (running && running.child.exitCode === null) await kill(running.child);
  await receiver.close();
  removeWorkdirs();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the embedded githost killed with SIGKILL while it writes', () => {
  it('when it starts again, then every comment, repository and push acknowledged before each of three kills is there, and every acknowledged push reaches its webhook', async () => {
    running = await start();
    const base = () => ({ url: running!.url });
    const made = await api(base(), 'POST', '/api/admin/users', { token: ADMIN_TOKEN, body: { username: 'alice', email: 'alice@example.com' } });
    expect(made.status).toBe(201);
    const token = ((await api(base(), 'POST', '/api/admin/users/alice/tokens', { token: ADMIN_TOKEN, body: { name: 'kill' } })).body as { token: string }).token;
    expect((await api(base(), 'POST', '/api/repos', { token, body: { name: 'app' } })).status).toBe(201);
    expect((await api(base(), 'POST', '/api/repos/alice/app/webhooks', { token, body: { url: `${receiver.url}/app` } })).status).toBe(201);
    const work = makeWorkdir();
    await git(work, 'init', '-q', '-b', 'main');
    await git(work, 'commit', '-q', '--allow-empty', '-m', 'first');
    const remote = () => `http://alice:${token}@127.0.0.1:${running!.port}/alice/app.git`;
    await git(work, 'push', '-q', remote(), 'main');
    await git(work, 'checkout', '-q', '-b', 'topic');
    await git(work, 'commit', '-q', '--allow-empty', '-m', 'topic');
    await git(work, 'push', '-q', remote(), 'topic');
    expect((await api(base(), 'POST', '/api/repos/alice/app/merge-requests', { token, body: { title: 'kept', source_branch: 'topic', target_branch: 'main' } })).status).toBe(201);

    const comments: string[] = [];
    const repos: string[] = [];
    const pushes: { ref: string; sha: string }[] = [];
    for (const [round, killAfter] of KILL_AFTER_MS.entries()) {
      let killed = false;
      // Each writer goes on until the kill; what was answered 201 (or pushed with exit 0) is acknowledged.
      const commentWriter = async () => {
        for (let i = 0; !killed; i++) {
          const body = `comment ${round}.${i}`;
          const res = await api(base(), 'POST', '/api/repos/alice/app/merge-requests/1/comments', { token, body: { body } }).catch(() => undefined);
          if (res?.status === 201) comments.push(body);
        }
      };
      const repoWriter = async () => {
        for (let i = 0; !killed; i++) {
          const name = `r${round}x${i}`;
          const res = await api(base(), 'POST', '/api/repos', { token, body: { name } }).catch(() => undefined);
          if (res?.status === 201) repos.push(name);
        }
      };
      const pusher = async () => {
        for (let i = 0; !killed; i++) {
          const branch = `b${round}x${i}`;
          await git(work, 'checkout', '-q', '-b', branch, 'main');
          await git(work, 'commit', '-q', '--allow-empty', '-m', branch);
          const sha = (await git(work, 'rev-parse', 'HEAD')).trim();
          if ((await gitResult(work, 'push', '-q', remote(), branch)).code === 0) pushes.push({ ref: `refs/heads/${branch}`, sha });
        }
      };
      const writers = Promise.all([commentWriter(), repoWriter(), pusher()]);
      await new Promise((resolve) => setTimeout(resolve, killAfter));
      await kill(running.child);
      killed = true;
      await writers;

      running = await start();
      const detail = await api(base(), 'GET', '/api/repos/alice/app/merge-requests/1', { token });
      expect(detail.status).toBe(200);
      const kept = new Set((detail.body as { comments: { body: string }[] }).comments.map((c) => c.body));
      expect(comments.filter((c) => !kept.has(c))).toEqual([]);
      const missingRepos: string[] = [];
      for (const name of repos) if ((await api(base(), 'GET', `/api/repos/alice/${name}`, { token })).status !== 200) missingRepos.push(name);
      expect(missingRepos).toEqual([]);
      const refs = new Map((await git(work, 'ls-remote', remote())).trim().split('\n').map((line) => [line.split('\t')[1]!, line.split('\t')[0]!]));
      expect(pushes.filter((p) => refs.get(p.ref) !== p.sha)).toEqual([]);
      process.stdout.write(`round ${round + 1}: killed after ${killAfter} ms; acknowledged so far: ${comments.length} comments, ${repos.length} repositories, ${pushes.length} pushes\n`);
    }
    // Something was written in every round, or the kills proved nothing.
    expect([comments.length, repos.length, pushes.length].every((n) => n >= KILL_AFTER_MS.length)).toBe(true);
    const notDelivered = () => {
      const seen = new Set(receiver.received.filter((d) => d.body.event === 'push').map((d) => `${String(d.body.ref)} ${String(d.body.after)}`));
      return pushes.filter((p) => !seen.has(`${p.ref} ${p.sha}`));
    };
    await eventually(() => (notDelivered().length === 0 ? true : undefined), 60_000).catch(() => undefined);
    expect(notDelivered()).toEqual([]);
    // Still writable, and the repository whole.
    expect((await api(base(), 'POST', '/api/repos/alice/app/merge-requests/1/comments', { token, body: { body: 'after the kills' } })).status).toBe(201);
    const copy = makeWorkdir();
    await git(copy, 'clone', '-q', remote(), 'app');
    expect((await gitResult(path.join(copy, 'app'), 'fsck', '--no-dangling')).code).toBe(0);
  }, 300_000);
});
