import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addCollaborator, api, commitFiles, createRepo, createUser, eventually, git, makeWorkdir, pushUrl, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * Webhook formats (docs/decisions/webhook-formats.md) through the gateway with real pushes, merge
 * requests, reviews, statuses and merges: a `gitea` webhook's receiver checks X-Gitea-Signature as
 * Woodpecker's Gitea forge does (hex HMAC-SHA256 of the raw body, compared), a `slack` webhook's
 * receiver reads the chat line.
 */

interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  signatureMatched: boolean;
}

interface CheckingReceiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * A receiver that refuses (401) any request whose X-Gitea-Signature is not the hex HMAC-SHA256 of
 * the raw body under `secret`; with no secret it accepts all. Answers `ok` as Slack does.
 */
async function startCheckingReceiver(secret: string | null): Promise<CheckingReceiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let signatureMatched = false;
      if (secret !== null) {
        const want = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'));
        const got = Buffer.from(String(req.headers['x-gitea-signature'] ?? ''));
        signatureMatched = got.length === want.length && timingSafeEqual(got, want);
      }
      let body = {};
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        // kept empty; the assertions show it
      }
      received.push({ headers: req.headers, raw, body, signatureMatched });
      if (secret !== null && !signatureMatched) return void res.writeHead(401).end('bad signature');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

const SECRET = 'gitea-shared-secret';
const ZERO = '0'.repeat(40);

let gh: TestGithost;
let alice: TestUser;
let carol: TestUser;
let gitea: CheckingReceiver;
let slack: CheckingReceiver;
let work: string;
let remote: string;
const repoPath = '/api/repos/alice/formats';
const hookIds: Record<'gitea' | 'slack', string> = { gitea: '', slack: '' };
const tips: Record<string, string> = {};

const ofType = (type: string) => gitea.received.filter((r) => r.headers['x-gitea-event-type'] === type);
const one = async (type: string, match: (r: Received) => boolean = () => true): Promise<Received> =>
  eventually(() => ofType(type).find(match), 30_000);

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  carol = await createUser(gh, 'carol');
  await createRepo(gh, alice.token, 'formats');
  await addCollaborator(gh, alice.token, 'alice', 'formats', 'carol', 'write');
  gitea = await startCheckingReceiver(SECRET);
  slack = await startCheckingReceiver(null);
  for (const [type, url, secret] of [['gitea', gitea.url, SECRET], ['slack', slack.url, undefined]] as const) {
    const res = await api(gh, 'POST', `${repoPath}/webhooks`, { token: alice.token, body: { url: `${url}/hook`, events: '*', type, ...(secret ? { secret } : {}) } });
    if (res.status !== 201) throw new Error(`create ${type} webhook: ${res.status} ${JSON.stringify(res.body)}`);
    // the seed's exact webhook shape (seed §2): the type is not shown
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'events', 'id', 'is_active', 'repo_id', 'url']);
    hookIds[type] = res.body.id;
  }

  // The whole story, once: every event the receivers check below comes from it.
  work = makeWorkdir();
  remote = pushUrl(gh, 'alice', alice.token, 'alice', 'formats');
  tips.main = (await commitFiles(work, { 'README.md': '# formats\n' }, 'first')).trim();
  await git(work, 'push', '-q', remote, 'main');
  await git(work, 'checkout', '-q', '-b', 'feature');
  tips.feature1 = (await commitFiles(work, { 'a.txt': 'one\n' }, 'feature: one')).trim();
  await git(work, 'push', '-q', remote, 'feature');
  const mrs = `${repoPath}/merge-requests`;
  expect((await api(gh, 'POST', mrs, { token: alice.token, body: { title: 'Add a', description: 'Why a', source_branch: 'feature', target_branch: 'main' } })).status).toBe(201);
  expect((await api(gh, 'PATCH', `${mrs}/1`, { token: alice.token, body: { title: 'Add a.txt' } })).status).toBe(200);
  // the merge request follows its branch: a `synchronize` once merge-requests has seen the push
  tips.feature2 = (await commitFiles(work, { 'a.txt': 'one\ntwo\n' }, 'feature: two')).trim();
  await git(work, 'push', '-q', remote, 'feature');
  await eventually(async () => ((await api(gh, 'GET', `${mrs}/1`)).body.head_sha === tips.feature2 ? true : undefined), 30_000);
  expect((await api(gh, 'PATCH', `${mrs}/1`, { token: alice.token, body: { state: 'closed' } })).status).toBe(200);
  expect((await api(gh, 'PATCH', `${mrs}/1`, { token: alice.token, body: { state: 'open' } })).status).toBe(200);
  for (const body of [{ event: 'request_changes', body: 'two is wrong' }, { event: 'comment', body: 'on second look' }, { event: 'approve', body: 'LGTM' }]) {
    expect((await api(gh, 'POST', `${mrs}/1/reviews`, { token: carol.token, body })).status).toBe(201);
  }
  expect((await api(gh, 'POST', `${repoPath}/statuses/${tips.feature2}`, { token: alice.token, body: { state: 'success', context: 'ci/build', target_url: 'https://ci.example.com/1' } })).status).toBe(201);
  expect((await api(gh, 'POST', `${mrs}/1/merge`, { token: carol.token })).status).toBe(200);
  await git(work, 'push', '-q', remote, '--delete', 'feature');
}, 180_000);

afterAll(async () => {
  await gitea?.close();
  await slack?.close();
  await gh?.stop();
});

describe('a gitea webhook', () => {
  it('when every event has arrived, then each one carried an X-Gitea-Signature that matched its raw body, and every delivery is delivered', async () => {
    await one('delete');
    await one('pull_request', (r) => r.body.pull_request?.merged === true);
    await one('status');
    await eventually(async () => {
      const list = (await api(gh, 'GET', `${repoPath}/webhooks/${hookIds.gitea}/deliveries?limit=100`, { token: alice.token })).body as Array<{ status: string }>;
      return list.length === gitea.received.length && list.every((d) => d.status === 'delivered') ? true : undefined;
    }, 30_000);
    expect(gitea.received.length).toBeGreaterThanOrEqual(14);
    expect(gitea.received.filter((r) => !r.signatureMatched).map((r) => r.headers['x-gitea-event-type'])).toEqual([]);
    for (const r of gitea.received) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-gitea-delivery']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(r.headers['x-hub-signature-256']).toBe(`sha256=${r.headers['x-gitea-signature']}`);
      expect(r.headers['x-githost-event']).toBeUndefined();
    }
    // one delivery id per request
    expect(new Set(gitea.received.map((r) => r.headers['x-gitea-delivery'])).size).toBe(gitea.received.length);
  });

  it('when a branch is pushed for the first time, then `create` and then a `push` with Gitea\'s fields', async () => {
    const created = await one('create', (r) => r.body.ref === 'feature');
    expect(created.headers['x-gitea-event']).toBe('create');
    expect(created.body).toMatchObject({ sha: tips.feature1, ref: 'feature', ref_type: 'branch', repository: { full_name: 'alice/formats', name: 'formats', owner: { login: 'alice', username: 'alice' } }, sender: { login: 'alice' } });
    const pushed = await one('push', (r) => r.body.ref === 'refs/heads/feature' && r.body.after === tips.feature1);
    expect(pushed.body).toMatchObject({ before: ZERO, compare_url: '', total_commits: 1, head_commit: { id: tips.feature1, message: 'feature: one\n' }, pusher: { login: 'alice' }, sender: { login: 'alice' } });
    expect(pushed.body.commits.map((c: { id: string }) => c.id)).toEqual([tips.feature1]);
    const repo = pushed.body.repository;
    expect(Number.isSafeInteger(repo.id) && repo.id > 0).toBe(true);
    expect(repo.html_url).toMatch(/\/alice\/formats$/);
    expect(repo.clone_url).toMatch(/\/alice\/formats\.git$/);
  });

  it('when a branch moves, then a push with compare_url and commits; the main branch\'s first push also sent `create`', async () => {
    const moved = await one('push', (r) => r.body.ref === 'refs/heads/feature' && r.body.after === tips.feature2);
    expect(moved.body).toMatchObject({ before: tips.feature1, total_commits: 1, commits: [{ id: tips.feature2, author: { name: expect.any(String), email: expect.any(String) } }] });
    expect(moved.body.compare_url).toContain(`base=${tips.feature1}&head=${tips.feature2}`);
    await one('create', (r) => r.body.ref === 'main' && r.body.sha === tips.main);
  });

  it('when a merge request is opened, edited, synchronized, closed, reopened and merged, then pull_request events with those actions', async () => {
    const opened = await one('pull_request', (r) => r.body.action === 'opened');
    expect(opened.headers['x-gitea-event']).toBe('pull_request');
    expect(opened.body).toMatchObject({
      number: 1,
      pull_request: { number: 1, title: 'Add a', body: 'Why a', state: 'open', merged: false, head: { ref: 'feature', sha: tips.feature1, repo: { full_name: 'alice/formats' } }, base: { ref: 'main' }, user: { login: 'alice' }, labels: [] },
      repository: { full_name: 'alice/formats' },
      sender: { login: 'alice' },
    });
    expect(opened.body.pull_request.html_url).toMatch(/\/alice\/formats\/-\/merge-requests\/1$/);
    const edited = await one('pull_request', (r) => r.body.action === 'edited');
    expect(edited.body).toMatchObject({ changes: { title: { from: 'Add a' } }, pull_request: { title: 'Add a.txt' } });
    const synced = await one('pull_request_sync');
    expect(synced.headers['x-gitea-event']).toBe('pull_request');
    expect(synced.body).toMatchObject({ action: 'synchronized', pull_request: { head: { sha: tips.feature2 } } });
    expect((await one('pull_request', (r) => r.body.action === 'closed' && r.body.pull_request.merged === false)).body.pull_request.state).toBe('closed');
    expect((await one('pull_request', (r) => r.body.action === 'reopened')).body.pull_request.state).toBe('open');
    const merged = await one('pull_request', (r) => r.body.pull_request?.merged === true);
    expect(merged.body).toMatchObject({ action: 'closed', number: 1, pull_request: { state: 'closed', merged: true } });
    // the same pull request has the same integer id in every event
    expect(new Set(ofType('pull_request').map((r) => r.body.pull_request.id)).size).toBe(1);
  });

  it.each([
    ['pull_request_review_rejected', 'pull_request_rejected', 'two is wrong'],
    ['pull_request_review_comment', 'pull_request_comment', 'on second look'],
    ['pull_request_review_approved', 'pull_request_approved', 'LGTM'],
  ])('when a review is submitted, then event type %s, X-Gitea-Event %s, action reviewed', async (type, event, content) => {
    const r = await one(type);
    expect(r.headers['x-gitea-event']).toBe(event);
    expect(r.body).toMatchObject({ action: 'reviewed', number: 1, review: { type, content }, sender: { login: 'carol' }, pull_request: { number: 1 } });
  });

  it('when a commit status is posted, then `status` with sha, state, context and target_url', async () => {
    const r = await one('status');
    expect(r.body).toMatchObject({ sha: tips.feature2, state: 'success', context: 'ci/build', target_url: 'https://ci.example.com/1', commit: { id: tips.feature2 }, sender: { login: 'alice' } });
  });

  it('when a branch is deleted, then `delete` and no push for it', async () => {
    const r = await one('delete');
    expect(r.body).toMatchObject({ ref: 'feature', ref_type: 'branch', pusher_type: 'user', sender: { login: 'alice' } });
    expect(ofType('push').filter((p) => p.body.after === ZERO)).toEqual([]);
  });

  it('when the type is not one githost knows, then 400 naming it and no webhook is created', async () => {
    const before = (await api(gh, 'GET', `${repoPath}/webhooks`, { token: alice.token })).body.length;
    const res = await api(gh, 'POST', `${repoPath}/webhooks`, { token: alice.token, body: { url: `${gitea.url}/x`, type: 'gogs' } });
    expect([res.status, res.body]).toEqual([400, { error: 'Unknown webhook type: gogs (one of githost, gitea, slack)' }]);
    expect((await api(gh, 'GET', `${repoPath}/webhooks`, { token: alice.token })).body.length).toBe(before);
  });
});

describe('a slack webhook', () => {
  const texts = () => slack.received.map((r) => String(r.body.text));

  it('when pushes and merge request actions happen, then one chat line each, with <url|label> links; reviews and statuses are not sent', async () => {
    await eventually(() => (texts().some((t) => t.includes('Merge request merged')) && texts().some((t) => t.includes('branch feature deleted')) ? true : undefined), 30_000);
    for (const r of slack.received) {
      expect(Object.keys(r.body)).toEqual(['text']);
      expect(r.headers['content-type']).toBe('application/json');
    }
    const repoLink = /^\[<http:\/\/[^|]+\/alice\/formats\|alice\/formats>/;
    expect(texts().every((t) => repoLink.test(t))).toBe(true);
    expect(texts()).toEqual(expect.arrayContaining([
      expect.stringMatching(new RegExp(`:<[^|]+/-/tree/feature\\|feature>\\] 1 new commit pushed by alice\\n<[^|]+/-/commit/${tips.feature2}\\|${tips.feature2!.slice(0, 10)}>: feature: two - `)),
      expect.stringMatching(/\] Merge request opened: <[^|]+\/-\/merge-requests\/1\|#1 Add a> by alice$/),
      expect.stringMatching(/\] Merge request edited: <[^>]+\|#1 Add a\.txt> by alice$/),
      expect.stringMatching(/\] Merge request updated: /),
      expect.stringMatching(/\] Merge request closed: /),
      expect.stringMatching(/\] Merge request reopened: /),
      expect.stringMatching(/\] Merge request merged: /),
      expect.stringMatching(/\] branch feature deleted by alice$/),
    ]));
    expect(texts().filter((t) => /review|LGTM|ci\/build/.test(t))).toEqual([]);
    const kinds = ((await api(gh, 'GET', `${repoPath}/webhooks/${hookIds.slack}/deliveries?limit=100`, { token: alice.token })).body as Array<{ event: string }>).map((d) => d.event);
    expect([...new Set(kinds)].sort()).toEqual(['merge_request', 'push']);
  });

  it('when pinged, then a chat line', async () => {
    expect((await api(gh, 'POST', `${repoPath}/webhooks/${hookIds.slack}/pings`, { token: alice.token })).status).toBe(204);
    const ping = await eventually(() => slack.received.find((r) => String(r.body.text).includes('Ping from githost')), 30_000);
    expect(ping.body.text).toMatch(/^\[<[^|]+\|alice\/formats>\] Ping from githost, sent by alice$/);
  });
});
