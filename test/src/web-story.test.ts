import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, eventually, git, makeWorkdir, pushUrl, startReceiver, startTestGithost, type Receiver, type TestGithost } from './support/index.js';
import { launchBrowser, watchIncidents, type Browser } from '@githost/test-support/browser';
import { signInPage, submit } from './support/web-session.js';

/**
 * The end-to-end story through the whole stack in a real browser (services/web/README.md): the admin
 * creates a user, sets her password and issues her a token for CI on the admin pages; she signs
 * in, creates a repository, makes a token and pushes with the real git client, reads the code,
 * adds a webhook, opens a merge request from the compare view; a second user comments on a line
 * and approves; CI posts a status with the admin's token; she merges on the page and the webhook
 * delivery shows in settings.
 */
let gh: TestGithost;
let browser: Browser;
let receiver: Receiver;

const ADMIN_PASSWORD = 'root-password-1';
const ALICE_PASSWORD = 'alice-password-1';
const BOB_PASSWORD = 'bob-password-1';

beforeAll(async () => {
  gh = await startTestGithost();
  receiver = await startReceiver();
  const root = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: 'root', email: 'root@example.com', is_admin: true, password: ADMIN_PASSWORD } });
  expect(root.status).toBe(201);
  const bob = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: 'bob', email: 'bob@example.com', password: BOB_PASSWORD } });
  expect(bob.status).toBe(201);
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await gh?.stop();
});

describe('the story of a merge request, in a browser', () => {
  it('when an admin makes a user who pushes, opens a merge request that is reviewed, checked and merged, then every step shows on the pages', async () => {
    const admin = await browser.newContext();
    const alice = await browser.newContext();
    const bob = await browser.newContext();
    try {
      // The admin creates alice and sets her password on the admin pages.
      const a = await admin.newPage();
      const adminIncidents = watchIncidents(a);
      await signInPage(a, gh, 'root', ADMIN_PASSWORD);
      await a.goto(`${gh.url}/-/admin/users`);
      await a.fill('#new-username', 'alice');
      await a.fill('#new-email', 'alice@example.com');
      await submit(a, 'form[action="/-/admin/users"] button[type=submit]');
      expect(new URL(a.url()).pathname).toBe('/-/admin/users/alice');
      expect(await a.locator('p.notice').textContent()).toBe('The user has been created.');
      await a.fill('#set-password', ALICE_PASSWORD);
      await submit(a, 'form[action="/-/admin/users/alice/password"] button[type=submit]');
      expect(await a.locator('p.notice').textContent()).toContain('The password has been set');
      await a.fill('#token-name', 'ci');
      await a.selectOption('#token-expiry', '7');
      await submit(a, 'form[action="/-/admin/users/alice/tokens"] button[type=submit]');
      const ciToken = await a.locator('#new-token').inputValue();
      expect(await a.locator('.item-list li strong').first().textContent()).toBe('ci');
      const ciUser = await api(gh, 'GET', '/api/user', { token: ciToken });
      expect([ciUser.status, ciUser.body.username, ciUser.body.is_admin]).toEqual([200, 'alice', false]);
      const ciTokens = await api(gh, 'GET', '/api/admin/users/alice/tokens', { token: gh.adminToken });
      expect(ciTokens.body.map((t: { name: string; scopes: string[] }) => [t.name, t.scopes])).toEqual([['ci', ['read', 'write']]]);
      await a.goto(`${gh.url}/-/admin/users/alice`);
      expect(await a.locator('#new-token').count()).toBe(0);

      // She signs in, creates a repository and a token, and pushes with git.
      const p = await alice.newPage();
      const incidents = watchIncidents(p);
      await signInPage(p, gh, 'alice', ALICE_PASSWORD);
      await p.goto(`${gh.url}/-/new`);
      await p.fill('#repo-name', 'story');
      await submit(p, 'form[action="/-/new"] button[type=submit]');
      expect(new URL(p.url()).pathname).toBe('/alice/story');
      await p.goto(`${gh.url}/-/settings/tokens`);
      await p.fill('#token-name', 'laptop');
      await submit(p, 'form[action="/-/settings/tokens"] button[type=submit]');
      const token = await p.locator('#new-token').inputValue();
      expect(token.length).toBeGreaterThan(20);
      const work = makeWorkdir();
      await commitFiles(work, { 'README.md': '# Story\n', 'src/app.ts': 'export function greet(name: string): string {\n  return "hello " + name;\n}\n' }, 'First commit');
      await git(work, 'push', '-q', pushUrl(gh, 'alice', token, 'alice', 'story'), 'main');

      // She reads the code and a highlighted file.
      await p.goto(`${gh.url}/alice/story`);
      await p.locator('table.tree a', { hasText: /^src$/ }).click();
      await p.locator('table.tree a', { hasText: 'app.ts' }).click();
      await p.waitForLoadState('load');
      expect(await p.locator('table.code .hljs-keyword').first().textContent()).toBe('export');

      // A webhook for every event, then bob becomes a writer, both on the settings pages.
      await p.goto(`${gh.url}/alice/story/-/settings/webhooks`);
      await p.fill('#webhook-url', `${receiver.url}/story`);
      await p.fill('#webhook-events', '*');
      await submit(p, 'form[action="/alice/story/-/settings/webhooks"] button[type=submit]');
      expect(await p.locator('p.notice').textContent()).toBe('The webhook has been added.');
      await p.goto(`${gh.url}/alice/story/-/settings/collaborators`);
      await p.fill('#collaborator-username', 'bob');
      await submit(p, 'form[action="/alice/story/-/settings/collaborators"] button[type=submit]');
      expect(await p.locator('.item-list li').first().textContent()).toContain('bob');

      // A feature branch, then the merge request from the compare view.
      await git(work, 'checkout', '-q', '-b', 'feature/greeting');
      await commitFiles(work, { 'src/app.ts': 'export function greet(name: string): string {\n  return `hello, ${name}!`;\n}\n' }, 'Friendlier greeting');
      await git(work, 'push', '-q', pushUrl(gh, 'alice', token, 'alice', 'story'), 'feature/greeting');
      await p.goto(`${gh.url}/alice/story/-/merge-requests`);
      await submit(p, 'a.button.primary');
      await p.selectOption('#compare-head', 'feature/greeting');
      await submit(p, 'form.compare-pickers button[type=submit]');
      expect(await p.locator('table.diff-unified tr.d-add td.dl').first().textContent()).toContain('return `hello, ${name}!`;');
      expect(await p.locator('#mr-title').inputValue()).toBe('Friendlier greeting');
      await p.fill('#mr-description', 'Makes the **greeting** friendlier.');
      await submit(p, 'form.mr-form button[type=submit]');
      expect(new URL(p.url()).pathname).toBe('/alice/story/-/merge-requests/1');
      expect(await p.locator('.mr-description strong').textContent()).toBe('greeting');

      // Bob comments on line 2 of the new side, in place, and approves.
      const b = await bob.newPage();
      const bobIncidents = watchIncidents(b);
      await signInPage(b, gh, 'bob', BOB_PASSWORD);
      await b.goto(`${gh.url}/alice/story/-/merge-requests/1`);
      await b.click('table.diff-unified a[aria-label="Comment on line 2 (new)"]');
      await b.fill('tr.d-comment-form textarea', 'Nice template literal.');
      await submit(b, 'tr.d-comment-form button[type=submit]');
      expect(await b.locator('p.notice').textContent()).toBe('Your comment has been added.');
      expect(await b.locator('table.diff-unified tr.d-comments .comment-body').textContent()).toBe('Nice template literal.');
      await b.check('input[name=event][value=approve]');
      await submit(b, 'form.review-form button[type=submit]');
      expect(await b.locator('.review-approved').count()).toBe(1);
      expect(await b.locator('.review-summary').textContent()).toContain('1 approval');

      // CI reports a status on the head with the token the admin issued for alice.
      const head = (await git(work, 'rev-parse', 'HEAD')).trim();
      const status = await api(gh, 'POST', `/api/repos/alice/story/statuses/${head}`, { token: ciToken, body: { state: 'success', context: 'ci/test', description: 'all green' } });
      expect(status.status).toBe(201);

      // She sees the check and the approval and merges on the page.
      await p.goto(`${gh.url}/alice/story/-/merge-requests/1`);
      expect(await p.locator('.ci-status .status-list li').textContent()).toContain('ci/test');
      expect(await p.locator('.ci-status p .badge').textContent()).toBe('passed');
      await p.check('input[name=strategy][value=merge-commit]');
      await submit(p, '.merge-actions button:text-is("Merge")');
      expect(await p.locator('p.notice').textContent()).toBe('The merge request has been merged.');
      expect(await p.locator('.mr-header .badge').first().textContent()).toBe('merged');
      const main = await api(gh, 'GET', '/api/repos/alice/story/branches');
      const mainSha = (main.body.branches as { name: string; sha: string }[]).find((x) => x.name === 'main')!.sha;
      expect(await p.locator('.merge-box a').first().getAttribute('href')).toBe(`/alice/story/-/commit/${mainSha}`);

      // The merge's webhook delivery shows in the settings, with what was sent and answered.
      const hooks = await api(gh, 'GET', '/api/repos/alice/story/webhooks', { token });
      const hookId = hooks.body[0].id as string;
      await eventually(async () => {
        await p.goto(`${gh.url}/alice/story/-/settings/webhooks/${hookId}`);
        const merged = p.locator('li.delivery-delivered', { hasText: 'merge_request' });
        return (await merged.count()) > 0 ? true : undefined;
      }, 30_000);
      // Its line leads to its own page: what was sent and each attempt's answer.
      await p.locator('li.delivery-delivered', { hasText: 'merge_request' }).first().locator('a').click();
      await p.waitForURL(new RegExp(`/alice/story/-/settings/webhooks/${hookId}/deliveries/[0-9a-f-]+$`));
      expect(await p.locator('.delivery-detail pre').first().textContent()).toContain('"action": "merged"');
      expect(await p.locator('.attempt h3').first().textContent()).toContain('Attempt 1: ');
      expect(receiver.received.some((d) => d.headers['x-githost-event'] === 'merge_request')).toBe(true);

      expect([incidents, bobIncidents, adminIncidents]).toEqual([
        { dialogs: [], errors: [] },
        { dialogs: [], errors: [] },
        { dialogs: [], errors: [] },
      ]);
    } finally {
      await Promise.all([admin.close(), alice.close(), bob.close()]);
    }
  }, 300_000);
});
