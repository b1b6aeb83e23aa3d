import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addCollaborator, createRepo, createUsers, giteaClient, giteaFailure, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * services/gitea-api#what-githost-does-not-have: issues, labels, milestones, organisations and
 * releases answer as a Gitea instance with those units off answers, through gitea-js; a private
 * repository stays a 404 for a stranger there too.
 */
let gh: TestGithost;
let ann: TestUser;
let bob: TestUser;
let cat: TestUser;
const NOT_FOUND = "The target couldn't be found.";

beforeAll(async () => {
  gh = await startTestGithost();
  [ann, bob, cat] = await createUsers(gh, 'ann', 'bob', 'cat');
  await createRepo(gh, ann.token, 'demo');
  await createRepo(gh, ann.token, 'secret', { private: true });
  await addCollaborator(gh, ann.token, 'ann', 'demo', 'bob', 'write');
});

afterAll(async () => {
  await gh?.stop();
});

const messageOf = (body: unknown) => (body as { message?: string }).message;

describe('Gitea API: the units githost does not have', () => {
  it('when a tool lists labels or milestones, then an empty list with X-Total-Count 0; one by id is 404', async () => {
    const labels = await giteaClient(gh, bob.token).repos.issueListLabels('ann', 'demo');
    expect([labels.status, labels.data, labels.headers.get('x-total-count')]).toEqual([200, [], '0']);
    const milestones = await fetch(`${gh.url}/api/v1/repos/ann/demo/milestones`, { headers: { authorization: `token ${bob.token}` } });
    expect([milestones.status, await milestones.json()]).toEqual([200, []]);
    const label = await giteaFailure(giteaClient(gh, bob.token).repos.issueGetLabel('ann', 'demo', 1));
    expect([label.status, messageOf(label.body)]).toEqual([404, NOT_FOUND]);
  });

  it('when a tool lists issues as issues, then 404; creating one is refused as Gitea refuses a reader of a disabled unit', async () => {
    const list = await giteaFailure(giteaClient(gh, bob.token).repos.issueListIssues('ann', 'demo', { type: 'issues' }));
    expect([list.status, messageOf(list.body)]).toEqual([404, NOT_FOUND]);
    const create = await giteaFailure(giteaClient(gh, bob.token).repos.issueCreateIssue('ann', 'demo', { title: 'a bug' }));
    expect([create.status, messageOf(create.body)]).toEqual([403, 'user should have specific read permission or be a repo admin or a site admin']);
  });

  it('when a tool lists releases, then 403 for a writer and an empty list for the repository admin', async () => {
    expect((await giteaFailure(giteaClient(gh, bob.token).repos.repoListReleases('ann', 'demo'))).status).toBe(403);
    const admin = await giteaClient(gh, ann.token).repos.repoListReleases('ann', 'demo');
    expect([admin.status, admin.data]).toEqual([200, []]);
  });

  it('when a tool asks for an organisation or its labels, then 404 (every owner is a user); the lists of organisations are empty', async () => {
    expect((await giteaFailure(giteaClient(gh, bob.token).orgs.orgGet('ann'))).status).toBe(404);
    expect((await giteaFailure(giteaClient(gh, bob.token).orgs.orgListLabels('ann'))).status).toBe(404);
    const mine = await giteaClient(gh, bob.token).user.orgListCurrentUserOrgs();
    expect([mine.status, mine.data]).toEqual([200, []]);
  });

  it('when a stranger asks for a private repository\'s labels or releases, then 404 as for the repository', async () => {
    // Each call made only when awaited: a second one started early could reject before anything
    // listens to it (an unhandled rejection fails the test whatever its status).
    for (const call of [() => giteaClient(gh, cat.token).repos.issueListLabels('ann', 'secret'), () => giteaClient(gh).repos.repoListReleases('ann', 'secret')]) {
      expect((await giteaFailure(call())).status).toBe(404);
    }
  });
});
