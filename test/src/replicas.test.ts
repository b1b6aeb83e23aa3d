import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MACHINE_REDIS_URL, readHaproxyStats, removeRedisKeys } from '@githost/test-support';
import {
  api, commitFiles, cookiePair, createRepo, createUser, csrfOf, eventually, git, makeWorkdir, pushUrl, startReceiver, startTestGithost,
  type Receiver, type TestGithost, type TestUser,
} from './support/index.js';

/**
 * Two of each of accounts, browse, merge-requests, webhooks, web and the gateway, each its own process,
 * behind Debian's haproxy, on the real Postgres, RabbitMQ and Redis, with two git-storage shards
 * (docs/decisions/replicas.md). `gh.url` is haproxy; `gh.gatewayUrls` reach one gateway each.
 */
const prefix = `githost-e2e-replicas:${randomUUID()}:`;
const GIT_LIMIT = 30;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
let gh: TestGithost;
let one: { url: string; port: number };
let two: { url: string; port: number };

const at = (url: string) => ({ url, port: Number(new URL(url).port) });

/** Requests each server of one section was sent so far (haproxy's `stot`), GETs and HEADs (the
 *  section's own rows) and the rest (its `-writes` backend's, launcher/src/replicas.ts) together. */
const sessionsByServer = async (section: string): Promise<Map<string, number>> => {
  const counts = new Map<string, number>();
  for (const [k, r] of await readHaproxyStats(gh.haproxyStatsUrl!)) {
    if (r.svname === 'FRONTEND' || r.svname === 'BACKEND') continue;
    const server = [`${section}/`, `${section}-writes/`].map((p) => (k.startsWith(p) ? k.slice(p.length) : undefined)).find(Boolean);
    if (server) counts.set(server, (counts.get(server) ?? 0) + Number(r.stot));
  }
  return counts;
};

beforeAll(async () => {
  gh = await startTestGithost({
    backend: 'real',
    replicas: 2,
    shards: 2,
    env: { REDIS_URL: MACHINE_REDIS_URL, GITHOST_RATE_LIMIT_PREFIX: prefix, GITHOST_GIT_RATE_LIMIT_PER_MINUTE: String(GIT_LIMIT) },
  });
  [one, two] = gh.gatewayUrls!.map(at) as [typeof one, typeof two];
}, 300_000);

afterAll(async () => {
  await gh?.stop();
  removeRedisKeys(MACHINE_REDIS_URL, prefix);
});

describe('githost as replicas behind haproxy', () => {
  it('when it runs, then two processes of each replicated service and of the gateway run, haproxy among them, and /readyz answers through it', async () => {
    const names = gh.processes!.map((p) => p.name);
    for (const service of ['gateway', 'accounts', 'browse', 'merge-requests', 'webhooks', 'web']) expect(names).toEqual(expect.arrayContaining([service, `${service} 2`]));
    expect(names).toEqual(expect.arrayContaining(['haproxy', 'git-storage', 'git-storage shard-1']));
    expect(gh.gatewayUrls).toHaveLength(2);
    for (const url of [gh.url, ...gh.gatewayUrls!]) expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });

  it('when pages and the Gitea-compatible API are read through the load balancer, then each request crosses its public section once and nothing else of haproxy: the gateway forwards to its own web, the web and the face call their own gateway (docs/decisions/replicas.md#the-webs-own-gateway)', async () => {
    const owner = await createUser(gh, 'paula');
    await createRepo(gh, owner.token, 'pages');
    const wd = makeWorkdir();
    await commitFiles(wd, { 'README.md': 'pages\n' }, 'first');
    await git(wd, 'push', '-q', pushUrl(gh, 'paula', owner.token, 'paula', 'pages'), 'main');
    const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
    const [gatewaysBefore, websBefore] = [await sessionsByServer('gateway'), await sessionsByServer('web')];
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await fetch(`${gh.url}/paula/pages`, { headers: { accept: 'text/html' } })).status);
    const [gatewaysAfter, websAfter] = [await sessionsByServer('gateway'), await sessionsByServer('web')];
    expect(statuses).toEqual(Array(10).fill(200));
    // Each page view is one request through the public section; the gateway forwards it to its
    // own web replica (docs/decisions/replicas.md#the-web-paired-with-its-gateway), and the page's
    // API calls (several a page) go from the web straight to its gateway.
    expect([total(gatewaysAfter) - total(gatewaysBefore), total(websAfter) - total(websBefore)]).toEqual([10, 0]);

    // The face's calls to the API (JSON, and a raw file's bytes) go to its own gateway too.
    const faceBefore = await sessionsByServer('gateway');
    const face: number[] = [];
    for (let i = 0; i < 5; i++) {
      face.push((await fetch(`${gh.url}/api/v1/repos/paula/pages`, { headers: { authorization: `token ${owner.token}` } })).status);
      face.push((await fetch(`${gh.url}/api/v1/repos/paula/pages/raw/README.md`, { headers: { authorization: `token ${owner.token}` } })).status);
    }
    expect(face).toEqual(Array(10).fill(200));
    expect(total(await sessionsByServer('gateway')) - total(faceBefore)).toBe(10);
  });

  it('when alice pushes through the load balancer and then on one gateway, then a read on the other gateway at once sees each push, and a clone through the load balancer has the last', async () => {
    const alice = await createUser(gh, 'alice');
    await createRepo(gh, alice.token, 'demo');
    const wd = makeWorkdir();
    let sha = await commitFiles(wd, { 'README.md': 'first\n' }, 'first');
    await git(wd, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'demo'), 'main');
    const head = async (where: typeof one) => {
      const res = await api(where, 'GET', '/api/repos/alice/demo/commits/main?limit=1', { token: alice.token });
      return [res.status, res.body.commits?.[0]?.sha];
    };
    for (let i = 0; i < 6; i++) {
      const [writer, reader] = i % 2 === 0 ? [one, two] : [two, one];
      // Read first, so the reader keeps an answer the push is about to make stale.
      expect(await head(reader)).toEqual([200, sha]);
      expect((await api(reader, 'GET', '/api/repos/alice/demo/blob/main/README.md', { token: alice.token })).status).toBe(200);
      sha = await commitFiles(wd, { 'README.md': `change ${i}\n` }, `change ${i}`);
      await git(wd, 'push', '-q', pushUrl(writer, 'alice', alice.token, 'alice', 'demo'), 'main');
      expect(await head(reader)).toEqual([200, sha]);
      expect((await api(reader, 'GET', '/api/repos/alice/demo/blob/main/README.md', { token: alice.token })).body).toMatchObject({ commit: sha, content: `change ${i}\n` });
    }
    const copy = makeWorkdir();
    await git(copy, 'clone', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'demo'), 'demo');
    expect(await git(`${copy}/demo`, 'rev-parse', 'HEAD')).toBe(sha);
  }, 120_000);

  it(`when rita lists refs ${GIT_LIMIT + 10} times alternating gateways, then ${GIT_LIMIT} are admitted in all, ±1 per gateway (one budget in Redis)`, async () => {
    const rita = await createUser(gh, 'rita');
    await createRepo(gh, rita.token, 'limited');
    const auth = { authorization: `Basic ${Buffer.from(`rita:${rita.token}`).toString('base64')}` };
    const statuses: number[] = [];
    for (let i = 0; i < GIT_LIMIT + 10; i++) {
      const res = await fetch(`${(i % 2 === 0 ? one : two).url}/rita/limited.git/info/refs?service=git-upload-pack`, { headers: auth });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    // ±1 per replica: a spend Redis answers slower than 250 ms is counted in that gateway's memory
    // (docs/decisions/shared-rate-limits.md), which a very busy machine does now and then.
    const admitted = statuses.filter((s) => s === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(GIT_LIMIT);
    expect(admitted).toBeLessThanOrEqual(GIT_LIMIT + 2);
    expect(statuses.slice(GIT_LIMIT + 2).every((s) => s === 429)).toBe(true);
  }, 120_000);

  it('when 11 wrong passwords for one account are spread over both gateways and both accounts replicas, then the account is locked on both', async () => {
    const created = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: 'tariq', email: 'tariq@example.com', password: 'tariq password!' } });
    expect(created.status).toBe(201);
    const signIn = (where: typeof one, password: string) => api(where, 'POST', '/api/sessions', { body: { username: 'tariq', password }, headers: { 'user-agent': BROWSER } });
    const before = await sessionsByServer('accounts');
    const failed: number[] = [];
    for (let i = 0; i < 11; i++) failed.push((await signIn(i % 2 === 0 ? one : two, `guess ${i}`)).status);
    const after = await sessionsByServer('accounts');
    expect(failed.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(failed[10]).toBe(429);
    // Round robin: each accounts replica counted some of the failures (the count is in Postgres).
    for (const server of ['accounts-1', 'accounts-2']) expect((after.get(server) ?? 0) - (before.get(server) ?? 0)).toBeGreaterThanOrEqual(3);
    for (const where of [one, two]) expect(await signIn(where, 'tariq password!')).toMatchObject({ status: 429, body: { error: 'Too many failed sign-in attempts; try again later' } });
  }, 60_000);

  it('when a web sign-in form comes from one gateway and is posted to the other, then the CSRF token and the session work on both web replicas', async () => {
    const created = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: 'wanda', email: 'wanda@example.com', password: 'wanda password!' } });
    expect(created.status).toBe(201);
    const send = async (where: typeof one, method: 'GET' | 'POST', path: string, opts: { cookie?: string; form?: Record<string, string> } = {}) => {
      const headers: Record<string, string> = { 'user-agent': BROWSER, accept: 'text/html' };
      if (opts.cookie) headers.cookie = opts.cookie;
      if (opts.form) headers['content-type'] = 'application/x-www-form-urlencoded';
      const res = await fetch(where.url + path, { method, headers, body: opts.form ? new URLSearchParams(opts.form).toString() : undefined, redirect: 'manual' });
      return { status: res.status, html: await res.text(), location: res.headers.get('location'), cookies: res.headers.getSetCookie() };
    };
    // Twice: gateway N forwards to web N, so the GET is web 1's and the POST web 2's, then the other way.
    for (const [from, to] of [[one, two], [two, one]] as const) {
      const form = await send(from, 'GET', '/-/sign-in');
      const pre = cookiePair(form.cookies.find((c) => c.startsWith('githost_presession=')));
      const res = await send(to, 'POST', '/-/sign-in', { cookie: pre, form: { csrf: csrfOf(form.html), username: 'wanda', password: 'wanda password!', next: '/' } });
      expect([res.status, res.location]).toEqual([303, '/']);
      const cookie = cookiePair(res.cookies.find((c) => c.startsWith('githost_session=')));
      const page = await send(from, 'GET', '/-/new', { cookie });
      expect(page.status).toBe(200);
      const name = `made-${from.port}`;
      const made = await send(to, 'POST', '/-/new', { cookie, form: { csrf: csrfOf(page.html), name, description: '', default_branch: 'main', private: 'false' } });
      expect([made.status, made.location]).toEqual([303, `/wanda/${name}`]);
      for (const where of [one, two]) expect((await send(where, 'GET', `/wanda/${name}`, { cookie })).status).toBe(200);
    }
  }, 60_000);

  describe('merges and webhooks', () => {
    let mara: TestUser;
    let receiver: Receiver;
    beforeAll(async () => {
      mara = await createUser(gh, 'mara');
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
    });

    it('when 10 merges of one merge request race over both gateways and both merge-requests replicas, then exactly one merges', async () => {
      await createRepo(gh, mara.token, 'raced');
      const remote = pushUrl(gh, 'mara', mara.token, 'mara', 'raced');
      const wd = makeWorkdir();
      const base = await commitFiles(wd, { 'README.md': 'base\n' }, 'base');
      await git(wd, 'push', '-q', remote, 'main');
      await git(wd, 'checkout', '-q', '-b', 'topic');
      await commitFiles(wd, { 'topic.txt': 'topic\n' }, 'topic');
      await git(wd, 'push', '-q', remote, 'topic');
      const opened = await api(gh, 'POST', '/api/repos/mara/raced/merge-requests', { token: mara.token, body: { title: 'topic', source_branch: 'topic', target_branch: 'main' } });
      expect(opened.status).toBe(201);
      const all = await Promise.all(Array.from({ length: 10 }, (_, i) => api(i % 2 === 0 ? one : two, 'POST', `/api/repos/mara/raced/merge-requests/${opened.body.number}/merge`, { token: mara.token })));
      expect(all.filter((x) => x.status === 200)).toHaveLength(1);
      expect(all.filter((x) => x.status === 409 && x.body.error === 'Merge request is not open')).toHaveLength(9);
      const sha = all.find((x) => x.status === 200)!.body.sha;
      await git(wd, 'fetch', '-q', remote, 'main');
      expect(await git(wd, 'rev-parse', 'FETCH_HEAD', 'FETCH_HEAD^1')).toBe(`${sha}\n${base}`);
      const listed = await api(two, 'GET', '/api/repos/mara/raced/merge-requests?state=merged', { token: mara.token });
      expect((listed.body as Array<{ number: number }>).map((m) => m.number)).toEqual([opened.body.number]);
    }, 120_000);

    it('when 8 pushes happen with two webhooks replicas consuming, then each push is delivered exactly once', async () => {
      await createRepo(gh, mara.token, 'hooked');
      const hook = await api(gh, 'POST', '/api/repos/mara/hooked/webhooks', { token: mara.token, body: { url: `${receiver.url}/hooked`, events: 'push' } });
      expect(hook.status).toBe(201);
      const wd = makeWorkdir();
      const shas: string[] = [];
      for (let i = 0; i < 8; i++) {
        shas.push(await commitFiles(wd, { 'n.txt': `${i}\n` }, `push ${i}`));
        await git(wd, 'push', '-q', pushUrl(i % 2 === 0 ? one : two, 'mara', mara.token, 'mara', 'hooked'), 'main');
      }
      const afters = () => receiver.received.filter((d) => d.path === '/hooked').map((d) => (d.body as { after?: string }).after);
      await eventually(() => shas.every((s) => afters().includes(s)) || undefined, 60_000);
      // A little longer, so a second delivery of any of them would have arrived too.
      await new Promise((r) => setTimeout(r, 2000));
      const counts = shas.map((s) => afters().filter((a) => a === s).length);
      expect(counts).toEqual(Array(8).fill(1));
    }, 120_000);
  });
});

/** Last: it kills the second replica of everything. */
describe('a replica killed with SIGKILL', () => {
  /** haproxy's view of each server: `<section>/<server>` -> UP, DOWN, ... */
  const serverStates = async (): Promise<Map<string, string>> =>
    new Map([...(await readHaproxyStats(gh.haproxyStatsUrl!))].filter(([, r]) => r.svname !== 'FRONTEND' && r.svname !== 'BACKEND').map(([k, r]) => [k, r.status ?? '']));

  it('when the second of every replicated service and gateway is killed (the first web instead of the second), then pages and forms go on through each pairing\'s fallback, haproxy takes them out, githost keeps running, and nothing is answered 5xx once they are out', async () => {
    const kim = await createUser(gh, 'kim');
    await createRepo(gh, kim.token, 'survivor');
    const wd = makeWorkdir();
    const remote = pushUrl(gh, 'kim', kim.token, 'kim', 'survivor');
    await commitFiles(wd, { 'README.md': 'before\n' }, 'before');
    await git(wd, 'push', '-q', remote, 'main');
    expect([...(await serverStates()).values()].every((s) => s === 'UP')).toBe(true);

    const victims = gh.processes!.filter((p) => / 2$/.test(p.name) && !p.name.startsWith('git-storage'));
    expect(victims.map((p) => p.name).sort()).toEqual(['accounts 2', 'browse 2', 'gateway 2', 'merge-requests 2', 'web 2', 'webhooks 2']);

    // Each pairing's fallback: gateway 2 goes first, then web 1 (instead of web 2). A page now
    // comes to gateway 1, whose own web refuses it: haproxy's web section sends it to web 2,
    // whose own gateway is gone: it renders through the public section, so through gateway 1.
    const web1 = gh.processes!.find((p) => p.name === 'web')!;
    process.kill(victims.find((p) => p.name === 'gateway 2')!.pid, 'SIGKILL');
    process.kill(web1.pid, 'SIGKILL');
    await eventually(async () => {
      const states = await serverStates();
      return states.get('gateway/gateway-2')?.startsWith('DOWN') && states.get('web/web-1')?.startsWith('DOWN') ? true : undefined;
    });
    const websBefore = await sessionsByServer('web');
    const pages: number[] = [];
    for (let i = 0; i < 10; i++) pages.push((await fetch(`${gh.url}/kim/survivor`, { headers: { accept: 'text/html' } })).status);
    const websAfter = await sessionsByServer('web');
    expect(pages).toEqual(Array(10).fill(200));
    expect((websAfter.get('web-2') ?? 0) - (websBefore.get('web-2') ?? 0)).toBe(10);
    // A write too: the sign-in form posted to gateway 1, whose web refuses it, is sent whole to web 2.
    expect((await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: 'wendy', email: 'wendy@example.com', password: 'wendy password!' } })).status).toBe(201);
    const headers = { 'user-agent': BROWSER, accept: 'text/html' };
    const form = await fetch(`${one.url}/-/sign-in`, { headers });
    const pre = cookiePair(form.headers.getSetCookie().find((c) => c.startsWith('githost_presession=')));
    const body = new URLSearchParams({ csrf: csrfOf(await form.text()), username: 'wendy', password: 'wendy password!', next: '/' }).toString();
    const signIn = await fetch(`${one.url}/-/sign-in`, { method: 'POST', headers: { ...headers, cookie: pre, 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });
    expect([signIn.status, signIn.headers.get('location')]).toEqual([303, '/']);
    expect(signIn.headers.getSetCookie().some((c) => c.startsWith('githost_session='))).toBe(true);

    const killedAt = Date.now();
    for (const p of victims) if (p.name !== 'gateway 2' && p.name !== 'web 2') process.kill(p.pid, 'SIGKILL');
    // Requests keep going while haproxy notices; only those after it took every victim out must all succeed.
    const before: Array<number | string> = [];
    let down: Map<string, string>;
    for (;;) {
      down = await serverStates();
      const out = ['gateway/gateway-2', 'accounts/accounts-2', 'accounts-grpc/accounts-grpc-2', 'browse/browse-2', 'merge-requests/merge-requests-2', 'webhooks/webhooks-2', 'web/web-1'].every((k) => down.get(k)?.startsWith('DOWN'));
      if (out) break;
      before.push(await api(gh, 'GET', '/api/repos/kim/survivor/commits/main', { token: kim.token }).then((r) => r.status, (err: Error) => `failed: ${String((err.cause as Error | undefined)?.message ?? err.message)}`));
      await new Promise((r) => setTimeout(r, 50));
    }
    const window = Date.now() - killedAt;
    process.stdout.write(`haproxy took the killed replicas out ${window} ms after SIGKILL; answers in between: ${JSON.stringify(before)}\n`);
    expect(down.get('gateway/gateway-1')).toBe('UP');

    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push((await api(gh, 'GET', '/api/repos/kim/survivor/commits/main', { token: kim.token })).status);
      statuses.push((await api(gh, 'GET', '/api/repos/kim/survivor/merge-requests', { token: kim.token })).status);
      statuses.push((await api(gh, 'GET', '/api/repos/kim/survivor/webhooks', { token: kim.token })).status);
      statuses.push((await fetch(`${gh.url}/kim/survivor`, { headers: { accept: 'text/html' } })).status);
    }
    expect(statuses).toEqual(Array(40).fill(200));
    const after = await commitFiles(wd, { 'README.md': 'after\n' }, 'after');
    await git(wd, 'push', '-q', remote, 'main');
    expect((await api(gh, 'GET', '/api/repos/kim/survivor/commits/main?limit=1', { token: kim.token })).body.commits[0].sha).toBe(after);
  }, 120_000);
});
