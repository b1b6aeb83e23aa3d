import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createUser, giteaClient, giteaFailure, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * services/gitea-api: Gitea's instance-wide endpoints through gitea-js, each field as Gitea's
 * swagger document names it (`ServerVersion`, `GeneralAPISettings`, `APIError`), and the
 * credential forms Gitea reads (docs/decisions/gitea-api.md#credentials).
 */
let gh: TestGithost;
let ann: TestUser;

beforeAll(async () => {
  gh = await startTestGithost();
  ann = await createUser(gh, 'ann');
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
});
