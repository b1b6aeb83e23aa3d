import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setLogSink } from '@githost/logging';
import { api, commitFiles, createRepo, createUser, eventually, git, makeWorkdir, pushUrl, sample, startReceiver, startTestGithost, type Receiver, type TestGithost, type TestUser } from './support/index.js';

/**
 * Observability (CONTRACT §8) through the gateway: traffic of every kind, then every service's metrics on the
 * metrics port (one listener for all of them in embedded mode, never the public port) show it, and one
 * request id is followed from the gateway into the services, over gRPC and the bus.
 */

type LogLine = Record<string, unknown> & { service?: string; msg?: string; request_id?: string };

describe('observability end to end', () => {
  const lines: LogLine[] = [];
  let receiver: Receiver;
  let gh: TestGithost;
  let alice: TestUser;
  const browseId = `obs-browse-${randomUUID()}`;
  const mergeId = `obs-merge-${randomUUID()}`;

  beforeAll(async () => {
    // Every service's logger is made by the launcher after this, so all their lines land here.
    setLogSink({ destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) }, level: 'info' });
    gh = await startTestGithost();
    receiver = await startReceiver();

    alice = await createUser(gh, 'alice');
    await createRepo(gh, alice.token, 'watched');
    const hook = await api(gh, 'POST', '/api/repos/alice/watched/webhooks', {
      token: alice.token,
      body: { url: `${receiver.url}/hook`, events: '*' },
    });
    expect(hook.status).toBe(201);
    const work = makeWorkdir();
    await commitFiles(work, { 'README.md': 'hello\n' }, 'first');
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'watched'), 'main');
    await git(work, 'checkout', '-q', '-b', 'feature');
    await commitFiles(work, { 'feature.txt': 'new\n' }, 'feature');
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'watched'), 'feature');
    // main moves on, so the merge writes a merge commit (WriteMerge) rather than fast-forwarding
    await git(work, 'checkout', '-q', 'main');
    await commitFiles(work, { 'main.txt': 'moved\n' }, 'main moves');
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'watched'), 'main');

    const browse = { token: alice.token, headers: { 'X-Request-Id': browseId } };
    expect((await api(gh, 'GET', '/api/repos/alice/watched/tree/main', browse)).status).toBe(200);
    expect((await api(gh, 'GET', '/api/repos/alice/watched/raw/main/README.md', browse)).body).toBe('hello\n');
    expect((await api(gh, 'GET', '/api/repos/alice/watched/tree/main/missing', browse)).status).toBe(404);

    const mr = await api(gh, 'POST', '/api/repos/alice/watched/merge-requests', { token: alice.token, body: { title: 'Feature', source_branch: 'feature', target_branch: 'main' } });
    expect(mr.status).toBe(201);
    const merged = await api(gh, 'POST', `/api/repos/alice/watched/merge-requests/${mr.body.number}/merge`, { token: alice.token, headers: { 'X-Request-Id': mergeId } });
    expect([merged.status, merged.headers.get('x-request-id')]).toEqual([200, mergeId]);
    // three pushes, the merge and the push the merge makes (CONTRACT §9); under `*` the merge
    // request's `opened` comes beside its `merged`
    const count = (event: string) => receiver.received.filter((r) => r.event === event).length;
    await eventually(() => (count('merge_request') === 2 && count('push') === 4 ? true : undefined));
  });

  afterAll(async () => {
    setLogSink(undefined);
    await gh?.stop();
    await receiver?.close();
  });

  /** The metrics port's text, which in embedded mode holds every service's metrics: `service`'s are
   *  the `githost_<service>_*` families, each once. */
  const scrape = async (service: string) => {
    const res = await fetch(gh.metricsUrl);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain(`# TYPE githost_${service.replace(/-/g, '_')}_http_request_duration_seconds histogram`);
    return text;
  };

  it('when the public port is asked for /metrics, then 404: metrics are on the metrics port only', async () => {
    const res = await fetch(`${gh.url}/metrics`);
    expect([res.status, await res.json()]).toEqual([404, { error: 'Not found' }]);
  });

  it('when traffic went through, then every service answers /metrics with its HTTP requests by route and status', async () => {
    const text = await scrape('gateway');
    const services = new Set([...text.matchAll(/^githost_\w+\{[^}]*service="([\w-]+)"/gm)].map((m) => m[1]));
    expect([...services].sort()).toEqual(['accounts', 'browse', 'gateway', 'git-storage', 'merge-requests', 'webhooks']);
    for (const family of new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]))) expect(text.split(`# TYPE ${family} `)).toHaveLength(2);
    const browse = await scrape('browse');
    const browsed = (endpoint: string, status: string) => sample(browse, 'githost_browse_http_request_duration_seconds_count', { method: 'GET', route: `/api/repos/:owner/:repo/${endpoint}`, status });
    expect([browsed('tree', '200'), browsed('raw', '200'), browsed('tree', '404')]).toEqual([1, 1, 1]);
    const mrs = await scrape('merge-requests');
    const mr = (route: string, status: string) => sample(mrs, 'githost_merge_requests_http_request_duration_seconds_count', { method: 'POST', route: `/api/repos/:owner/:repo/merge-requests${route}`, status });
    expect([mr('', '201'), mr('/:number/merge', '200')]).toEqual([1, 1]);
    const storage = await scrape('git-storage');
    expect(sample(storage, 'githost_git_storage_http_request_duration_seconds_count', { method: 'POST', route: '/:owner/:repo.git/git-receive-pack', status: '200' })).toBe(3);
    const hooks = await scrape('webhooks');
    expect(sample(hooks, 'githost_webhooks_http_request_duration_seconds_count', { method: 'POST', route: '/api/repos/:owner/:repo/webhooks', status: '201' })).toBe(1);
    const accounts = await scrape('accounts');
    expect(sample(accounts, 'githost_accounts_http_request_duration_seconds_count', { method: 'POST', route: '/api/repos', status: '201' })).toBe(1);
    const gateway = await scrape('gateway');
    expect(sample(gateway, 'githost_gateway_forwarded_requests_total', { upstream: 'browse', status: '200' })).toBeGreaterThanOrEqual(2);
    expect(sample(gateway, 'githost_gateway_forwarded_requests_total', { upstream: 'git-storage', status: '200' })).toBeGreaterThanOrEqual(2);
  });

  it('when services called each other over gRPC, then both ends count the calls by method and code', async () => {
    const storage = await scrape('git-storage');
    const served = (method: string, code = 'OK') => sample(storage, 'githost_git_storage_grpc_server_handled_seconds_count', { method, code });
    expect(served('CreateRepository')).toBe(1);
    expect(served('ReadTree')).toBeGreaterThanOrEqual(1);
    expect(served('ReadBlob')).toBeGreaterThanOrEqual(1);
    expect(served('WriteMerge')).toBe(1);
    expect(served('UpdateRef')).toBe(1);
    const browse = await scrape('browse');
    expect(sample(browse, 'githost_browse_grpc_client_handled_seconds_count', { method: 'ReadBlob', code: 'OK' })).toBeGreaterThanOrEqual(1);
    expect(sample(browse, 'githost_browse_grpc_client_handled_seconds_count', { method: 'ReadTree', code: 'OK' })).toBeGreaterThanOrEqual(1);
    const mrs = await scrape('merge-requests');
    const called = (method: string, code = 'OK') => sample(mrs, 'githost_merge_requests_grpc_client_handled_seconds_count', { method, code });
    expect([called('WriteMerge'), called('UpdateRef')]).toEqual([1, 1]);
    expect(called('GetUsers')).toBeGreaterThanOrEqual(1);
    const accounts = await scrape('accounts');
    expect(sample(accounts, 'githost_accounts_grpc_server_handled_seconds_count', { method: 'GetUsers', code: 'OK' })).toBe(called('GetUsers'));
    expect(sample(accounts, 'githost_accounts_grpc_client_handled_seconds_count', { method: 'CreateRepository', code: 'OK' })).toBe(served('CreateRepository'));
    expect(sample(accounts, 'githost_accounts_grpc_server_handled_seconds_count', { method: 'Authenticate', code: 'OK' })).toBeGreaterThanOrEqual(1);
    expect(sample(accounts, 'githost_accounts_grpc_server_handled_seconds_count', { method: 'Authorize', code: 'OK' })).toBeGreaterThanOrEqual(1);
    const gateway = await scrape('gateway');
    for (const method of ['Authenticate', 'Authorize']) {
      // the gateway asks on cache misses only, and accounts answers nobody else these two
      expect(sample(gateway, 'githost_gateway_grpc_client_handled_seconds_count', { method, code: 'OK' })).toBe(sample(accounts, 'githost_accounts_grpc_server_handled_seconds_count', { method, code: 'OK' }));
    }
  });

  it('when git was read and events flowed, then the cat-file pool, the backlogs and the deliveries show it', async () => {
    const storage = await scrape('git-storage');
    const hits = sample(storage, 'githost_git_storage_catfile_cache_hits_total') ?? 0;
    const misses = sample(storage, 'githost_git_storage_catfile_cache_misses_total') ?? 0;
    expect(hits + misses).toBeGreaterThanOrEqual(1);
    expect(sample(storage, 'githost_git_storage_catfile_processes')).toBeGreaterThanOrEqual(1);
    // Every push event left the journal once the relay published it.
    await eventually(async () => (sample(await scrape('git-storage'), 'githost_git_storage_journal_backlog_events') === 0 ? true : undefined));

    const mrs = await scrape('merge-requests');
    expect(sample(mrs, 'githost_merge_requests_merges_total', { outcome: 'merge-commit' })).toBe(1);
    await eventually(async () => (sample(await scrape('merge-requests'), 'githost_merge_requests_outbox_backlog_events') === 0 ? true : undefined));

    const hooks = await scrape('webhooks');
    expect(sample(hooks, 'githost_webhooks_delivery_attempts_total', { outcome: 'delivered' })).toBe(receiver.received.length);
    expect(sample(hooks, 'githost_webhooks_event_lag_seconds_count')).toBe(receiver.received.length);
    await eventually(async () => (sample(await scrape('webhooks'), 'githost_webhooks_deliveries_pending') === 0 ? true : undefined));
  });

  it('when a browse request is followed by its id, then the gateway, browse and git-storage (over gRPC) log it', () => {
    const services = new Set(lines.filter((l) => l.request_id === browseId).map((l) => l.service));
    // accounts too when the gateway's Authorize cache missed; not asserted, the cache decides.
    expect([...services]).toEqual(expect.arrayContaining(['browse', 'gateway', 'git-storage']));
    const grpc = lines.filter((l) => l.request_id === browseId && l.msg === 'grpc call').map((l) => `${l.method} ${l.code}`);
    expect(grpc).toEqual(expect.arrayContaining(['ReadTree OK', 'ReadBlob OK']));
  });

  it('when a merge is followed by its id, then it reaches accounts and git-storage over gRPC and webhooks through the event and its delivery', () => {
    const mine = lines.filter((l) => l.request_id === mergeId);
    expect([...new Set(mine.map((l) => l.service))].sort()).toEqual(['accounts', 'gateway', 'git-storage', 'merge-requests', 'webhooks']);
    // merge-requests looked the merger up in accounts with the request's id
    expect(mine.filter((l) => l.service === 'accounts' && l.msg === 'grpc call').map((l) => l.method)).toContain('GetUsers');
    expect(mine.filter((l) => l.service === 'git-storage' && l.msg === 'grpc call').map((l) => l.method)).toEqual(expect.arrayContaining(['WriteMerge', 'UpdateRef']));
    expect(mine.filter((l) => l.service === 'webhooks').map((l) => l.msg)).toEqual(expect.arrayContaining(['event recorded', 'webhook delivery attempt']));
    const attempt = mine.find((l) => l.msg === 'webhook delivery attempt');
    expect(receiver.received.map((r) => r.headers['x-githost-delivery'])).toContain(attempt?.delivery_id);
  });
});
