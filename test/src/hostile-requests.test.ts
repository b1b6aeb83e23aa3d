import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import {
  api, commitFiles, createRepo, createUser, git, gitResult, makeWorkdir, pushUrl, startTestGithost,
  type TestGithost, type TestUser,
} from './support/index.js';
import { waitFor } from '@githost/test-support';

/**
 * The hostile-request probe's findings, through the gateway as a client sends them (README
 * "Malformed requests"): each answer a clear 4xx, never a 5xx, and one client's refused request
 * never spoils another's.
 */
let gh: TestGithost;
let alice: TestUser;
let mrNumber: number;
let mrPath: string;
let hooksPath: string;

/** A small push limit, so a refused push is quick to send. */
const PUSH_MAX_BYTES = 256 * 1024;
/** Short, so a silent body is quick to test; the default is 30 s. */
const BODY_TIMEOUT_MS = 1_000;

beforeAll(async () => {
  gh = await startTestGithost({ env: { PUSH_MAX_BYTES: String(PUSH_MAX_BYTES), GITHOST_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) } });
  alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'probe');
  const wd = makeWorkdir();
  await commitFiles(wd, { 'README.md': '# probe\n' }, 'first');
  await git(wd, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'probe'), 'main');
  await git(wd, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'probe'), 'main:feature');
  const mr = await api(gh, 'POST', '/api/repos/alice/probe/merge-requests', { token: alice.token, body: { title: 'probe', source_branch: 'feature', target_branch: 'main' } });
  expect(mr.status).toBe(201);
  mrNumber = mr.body.number as number;
  mrPath = `/api/repos/alice/probe/merge-requests/${mrNumber}/comments`;
  hooksPath = '/api/repos/alice/probe/webhooks';
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

/** `{"a":[[[…]]]}` nested `depth` levels, well under the 1 MiB body limit. */
const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

describe('deeply nested JSON', () => {
  it('when a body nests 20,000 levels deep, then every JSON route answers 400 naming the limit, anonymous sign-in included, and nothing changes', async () => {
    const body = nested(20_000);
    expect(body.length).toBeLessThan(1024 * 1024);
    const routes: [string, string, string | undefined][] = [
      ['POST', '/api/sessions', undefined],
      ['POST', '/api/repos', alice.token],
      ['POST', '/api/user/tokens', alice.token],
      ['POST', mrPath, alice.token],
      ['POST', hooksPath, alice.token],
    ];
    for (const [method, path, token] of routes) {
      const res = await api(gh, method, path, { token, body });
      expect([path, res.status, res.body]).toEqual([path, 400, { error: 'JSON body nested deeper than 64 levels' }]);
    }
    expect((await api(gh, 'GET', `/api/repos/alice/probe/merge-requests/${mrNumber}`, { token: alice.token })).body.comments).toEqual([]);
    expect((await api(gh, 'GET', hooksPath, { token: alice.token })).body).toEqual([]);
  });

  it('when a body nests a few levels, as every real one does, then it is taken', async () => {
    const res = await api(gh, 'POST', hooksPath, { token: alice.token, body: { url: 'http://127.0.0.1:9/hook', events: 'push', secret: 's' } });
    expect(res.status).toBe(201);
    await api(gh, 'DELETE', `${hooksPath}/${res.body.id}`, { token: alice.token });
  });
});

/** GET info/refs over a connection of its own from another loopback address: another client. */
function refsFromAnotherClient(): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: gh.port, localAddress: '127.0.0.2', path: '/alice/probe.git/info/refs?service=git-upload-pack', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a refused push', () => {
  it('when a push over PUSH_MAX_BYTES is refused, then the next git request of another client still answers 200, every time', async () => {
    const wd = makeWorkdir();
    await git(wd, 'clone', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'probe'), '.');
    await commitFiles(wd, { 'big.bin': randomBytes(4 * PUSH_MAX_BYTES) }, 'too big');
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const pushed = await gitResult(wd, 'push', pushUrl(gh, 'alice', alice.token, 'alice', 'probe'), 'main');
      expect(pushed.code).not.toBe(0);
      expect(pushed.stderr).toContain('pack exceeds maximum allowed size');
      statuses.push(await refsFromAnotherClient());
    }
    expect(statuses).toEqual(Array(8).fill(200));
  }, 120_000);
});

/** Sends the headers and `start` of a body, then nothing: the answer's status, body and Connection. */
function silentAfter(method: string, urlPath: string, headers: Record<string, string>, start: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: gh.port, method, path: urlPath, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve(`${res.statusCode} ${body} (connection: ${res.headers.connection})`));
    });
    req.on('error', reject);
    req.write(start);
  });
}

const quarantines = () => readdirSync(path.join(gh.dataDir, 'repos'), { recursive: true, encoding: 'utf8' }).filter((p) => path.basename(p).startsWith('tmp_objdir-'));

describe('a request body that goes silent', () => {
  it('when an anonymous sign-in body stops short of its Content-Length, then 408 Request timeout and the connection closes', async () => {
    const answer = await silentAfter('POST', '/api/sessions', { 'content-type': 'application/json', 'content-length': '200' }, '{"username":"alice",');
    expect(answer).toBe('408 {"error":"Request timeout"} (connection: close)');
  });

  it('when a push goes silent in the middle of its pack, then 408, no quarantine is left and nothing moves', async () => {
    const wd = makeWorkdir();
    await git(wd, 'clone', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'probe'), '.');
    const head = await git(wd, 'rev-parse', 'HEAD');
    const command = `${'0'.repeat(40)} ${head} refs/heads/stalled\0 report-status\n`;
    const start = `${(command.length + 4).toString(16).padStart(4, '0')}${command}0000PACK\0\0\0\x02`;
    const basic = `Basic ${Buffer.from(`alice:${alice.token}`).toString('base64')}`;
    const answer = await silentAfter('POST', '/alice/probe.git/git-receive-pack', { authorization: basic, 'content-type': 'application/x-git-receive-pack-request', 'transfer-encoding': 'chunked' }, start);
    expect(answer).toBe('408 {"error":"Request timeout"} (connection: close)');
    await waitFor(() => quarantines().length === 0, 'the push quarantine to be removed');
    expect(await git(wd, 'ls-remote', pushUrl(gh, 'alice', alice.token, 'alice', 'probe'), 'refs/heads/stalled')).toBe('');
  });
});

describe('many small header fields', () => {
  it('when 2,500 header fields of 39 KB in all are sent, then 431 naming the count, not accepted', async () => {
    const headers = Object.fromEntries(Array.from({ length: 2_500 }, (_, i) => [`x-probe-${i}`, 'v'.repeat(4)]));
    const res = await fetch(`${gh.url}/api/repos/alice/probe`, { headers });
    expect([res.status, await res.json()]).toEqual([431, { error: 'Too many header fields (at most 100)' }]);
  });
});
