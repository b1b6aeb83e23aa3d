import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, createUser, giteaClient, giteaFailure, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * services/gitea-api: Gitea's instance-wide endpoints through gitea-js, each field as Gitea's
 * swagger document names it (`ServerVersion`, `GeneralAPISettings`, `APIError`), and the
 * credential forms Gitea reads (docs/decisions/gitea-api.md#credentials).
 */
let gh: TestGithost;
let ann: TestUser;

// A small anonymous budget: the Gitea API's calls to githost's are counted against the client.
const ANONYMOUS_PER_MINUTE = 4;

beforeAll(async () => {
  gh = await startTestGithost({ env: { GITHOST_RATE_LIMIT_ANON_PER_MINUTE: String(ANONYMOUS_PER_MINUTE) } });
  ann = await createUser(gh, 'ann');
  await api(gh, 'POST', '/api/repos', { token: ann.token, body: { name: 'demo' } });
});

afterAll(async () => {
  await gh?.stop();
});

describe('Gitea API: the instance', () => {
  it('when a tool asks the version, then a Gitea version of the 1.22 line (services/gitea-api/README.md#the-version-it-reports)', async () => {
    const { data, status } = await giteaClient(gh).version.getVersion();
    expect([status, data]).toEqual([200, { version: '1.22.6' }]);
  });

  it('when a tool asks the API settings, then Gitea\'s defaults: 50 items at most, 30 by default', async () => {
    const { data } = await giteaClient(gh, ann.token).settings.getGeneralApiSettings();
    expect(data).toEqual({ max_response_items: 50, default_paging_num: 30, default_git_trees_per_page: 1000, default_max_blob_size: 10_485_760, default_max_response_size: 52_428_800 });
  });

  it('when a path under /api/v1 is not one Gitea serves here, then 404 in Gitea\'s error shape', async () => {
    const res = await fetch(`${gh.url}/api/v1/no/such/route`);
    expect([res.status, await res.json()]).toEqual([404, { message: 'not found', url: 'http://localhost:' + gh.port + '/api/swagger' }]);
  });

  it('when the credential is a token in any of Gitea\'s forms, then the caller is known; a wrong one is 401 in Gitea\'s shape', async () => {
    const forms: Array<[string, RequestInit]> = [
      ['', { headers: { authorization: `token ${ann.token}` } }],
      ['', { headers: { authorization: `Bearer ${ann.token}` } }],
      ['', { headers: { authorization: `Basic ${Buffer.from(`ann:${ann.token}`).toString('base64')}` } }],
      [`?token=${ann.token}`, {}],
      [`?access_token=${ann.token}`, {}],
    ];
    for (const [query, init] of forms) {
      const res = await fetch(`${gh.url}/api/v1/user${query}`, init);
      expect([res.status, ((await res.json()) as { login?: string }).login]).toEqual([200, 'ann']);
    }
    const wrong = await giteaFailure(giteaClient(gh, 'not-a-token').user.userGetCurrent());
    expect(wrong.status).toBe(401);
    expect(Object.keys(wrong.body as object).sort()).toEqual(['message', 'url']);
    const anonymous = await giteaFailure(giteaClient(gh).user.userGetCurrent());
    expect(anonymous.status).toBe(401);
  });

  it('when an anonymous client spends its budget through the Gitea API, then the calls it makes to githost\'s API are refused: 429 in Gitea\'s shape', async () => {
    const statuses: number[] = [];
    let refused: unknown;
    for (let i = 0; i < ANONYMOUS_PER_MINUTE + 1; i++) {
      const res = await fetch(`${gh.url}/api/v1/repos/ann/demo`);
      statuses.push(res.status);
      if (res.status === 429) refused = await res.json();
      else await res.arrayBuffer();
    }
    // Each answer takes two calls (the repository and its branches), so the budget runs out
    // within a few requests, and stays out for the minute.
    const first = statuses.indexOf(429);
    expect([statuses[0], first > 0, statuses.slice(first).every((s) => s === 429)]).toEqual([200, true, true]);
    expect(refused).toEqual({ message: 'Too many requests: try again in a minute', url: `http://localhost:${gh.port}/api/swagger` });
    // A token has its own budget.
    expect((await giteaClient(gh, ann.token).repos.repoGet('ann', 'demo')).status).toBe(200);
  });
});
