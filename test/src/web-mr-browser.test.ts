import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addCollaborator, api, commitFiles, cookiePair, csrfOf, createRepo, eventually, git, makeWorkdir, pushUrl, startReceiver, startTestGithost, textOf, webGet, webPost, type Receiver, type TestGithost } from './support/index.js';
import { launchBrowser, readPages, VIEWPORTS, withPage, type Browser, type Page } from '@githost/test-support/browser';
import { signInPage, submit, visitPage } from './support/web-session.js';

/**
 * The merge request, compare, repository settings and site admin pages in a real browser
 * (services/web/README.md#tests): axe (no serious or critical violation) at 375 and 1440 px, light and dark;
 * markup in titles, comments, branch names and webhook URLs executes nothing; forms carry the
 * anti-CSRF token, redirect with a notice or show the API's refusal; what the API refuses is the
 * same 404 page as what does not exist; the inline comment form works without script.
 */
let gh: TestGithost;
let browser: Browser;
let receiver: Receiver;
let aliceToken: string;
const cookies: Record<string, string> = {};
let hookId: string;
/** The ping's delivery, whose page the accessibility run reads. */
let pingId: string;

const XSS_TITLE = '<script>alert(1)</script> "><img src=x onerror=alert(2)>';
const XSS_BRANCH = 'xss/"><img-src=x-onerror=alert(5)>';
const XSS_COMMENT = '"><img src=x onerror=alert(3)> <script>alert(4)</script>';
const XSS_HOOK = 'https://example.invalid/"><img src=x onerror=alert(6)>';
const PASSWORD = 'a-good-password-1';

async function userWithPassword(username: string, isAdmin = false): Promise<string> {
  const res = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username, email: `${username}@example.com`, is_admin: isAdmin, password: PASSWORD } });
  if (res.status !== 201) throw new Error(`user ${username}: ${res.status}`);
  const session = await api(gh, 'POST', '/api/sessions', { body: { username, password: PASSWORD } });
  cookies[username] = `githost_session=${encodeURIComponent(session.body.secret as string)}`;
  const token = await api(gh, 'POST', '/api/user/tokens', { token: session.body.secret as string, body: { name: 'e2e', scopes: isAdmin ? ['read', 'write', 'admin'] : ['read', 'write'] } });
  return token.body.token as string;
}

beforeAll(async () => {
  gh = await startTestGithost();
  receiver = await startReceiver();
  await userWithPassword('root', true);
  aliceToken = await userWithPassword('alice');
  await userWithPassword('bob');
  await createRepo(gh, aliceToken, 'demo');
  await createRepo(gh, aliceToken, 'secret', { private: true });
  await addCollaborator(gh, aliceToken, 'alice', 'demo', 'bob', 'read');
  const work = makeWorkdir();
  await commitFiles(work, { 'src/app.ts': 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n', 'notes.txt': 'base\n' }, 'First commit');
  await git(work, 'checkout', '-q', '-b', 'feature');
  await commitFiles(work, { 'src/app.ts': 'export const a = 1;\nexport const b = 20;\nexport const c = 3;\n' }, 'Change b');
  await git(work, 'checkout', '-q', 'main');
  await git(work, 'checkout', '-q', '-b', XSS_BRANCH);
  await commitFiles(work, { 'notes.txt': 'xss\n' }, 'Branch notes');
  await git(work, 'checkout', '-q', 'main');
  await commitFiles(work, { 'notes.txt': 'main\n' }, 'Main notes');
  for (const repo of ['demo', 'secret']) await git(work, 'push', '-q', pushUrl(gh, 'alice', aliceToken, 'alice', repo), 'refs/heads/*:refs/heads/*');
  const mr = (body: Record<string, unknown>) => api(gh, 'POST', '/api/repos/alice/demo/merge-requests', { token: aliceToken, body });
  expect((await mr({ title: XSS_TITLE, description: `# Plan\n\n${XSS_COMMENT}\n\n[x](javascript:alert(7))`, source_branch: 'feature', target_branch: 'main' })).status).toBe(201);
  expect((await mr({ title: 'Conflicting notes', source_branch: XSS_BRANCH, target_branch: 'main' })).status).toBe(201);
  expect((await mr({ title: 'Abandoned', source_branch: 'feature', target_branch: 'main' })).status).toBe(201);
  expect((await api(gh, 'PATCH', '/api/repos/alice/demo/merge-requests/3', { token: aliceToken, body: { state: 'closed' } })).status).toBe(200);
  const comment = (body: Record<string, unknown>) => api(gh, 'POST', '/api/repos/alice/demo/merge-requests/1/comments', { token: aliceToken, body });
  expect((await comment({ body: XSS_COMMENT, file_path: 'src/app.ts', line_number: 2, diff_side: 'new' })).status).toBe(201);
  expect((await comment({ body: `general ${XSS_COMMENT}` })).status).toBe(201);
  expect((await comment({ body: 'on the old side', file_path: 'src/app.ts', line_number: 2, diff_side: 'old' })).status).toBe(201);
  const hook = await api(gh, 'POST', '/api/repos/alice/demo/webhooks', { token: aliceToken, body: { url: `${receiver.url}/demo`, events: '*' } });
  hookId = hook.body.id as string;
  await api(gh, 'POST', '/api/repos/alice/demo/webhooks', { token: aliceToken, body: { url: XSS_HOOK } });
  expect((await api(gh, 'POST', `/api/repos/alice/demo/webhooks/${hookId}/pings`, { token: aliceToken })).status).toBe(204);
  pingId = await eventually(async () => {
    const list = await api(gh, 'GET', `/api/repos/alice/demo/webhooks/${hookId}/deliveries`, { token: aliceToken });
    return (list.body as { id: string; status: string }[]).find((d) => d.status !== 'pending')?.id;
  }, 30_000);
  await api(gh, 'PUT', '/api/repos/alice/demo/branch-protections/main', { token: aliceToken, body: { required_approvals: 1, required_status_checks: ['ci/test'] } });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await gh?.stop();
});

const enc = encodeURIComponent;
const PAGES = () => [
  '/alice/demo/-/merge-requests',
  '/alice/demo/-/merge-requests?state=closed',
  '/alice/demo/-/merge-requests/1',
  '/alice/demo/-/merge-requests/1?view=split',
  '/alice/demo/-/merge-requests/1?comment=new:3&path=src/app.ts',
  '/alice/demo/-/merge-requests/2',
  '/alice/demo/-/merge-requests/1/edit',
  '/alice/demo/-/compare?base=main&head=feature',
  `/alice/demo/-/compare?base=main&head=${enc(XSS_BRANCH)}`,
  '/alice/demo/-/settings',
  '/alice/demo/-/settings/collaborators',
  '/alice/demo/-/settings/branches',
  '/alice/demo/-/settings/webhooks',
  `/alice/demo/-/settings/webhooks/${hookId}`,
  `/alice/demo/-/settings/webhooks/${hookId}/deliveries/${pingId}`,
  '/-/admin/users',
  '/-/admin/users/bob',
];

const visit = (page: Page, path: string) => visitPage(page, gh, path);

describe('the merge request, settings and admin pages in a browser', () => {
  for (const viewport of VIEWPORTS) {
    it(`when read at ${viewport.width} px in ${viewport.colorScheme} mode by a site admin, then axe finds no serious or critical violation, nothing runs that should not, and nothing overflows the width`, async () => {
      const { readings, incidents } = await readPages(browser, viewport, PAGES(), {
        prepare: (page) => signInPage(page, gh, 'root', PASSWORD),
        open: visit,
      });
      expect(readings).toEqual(PAGES().map((path) => ({ path, status: 200, violations: [], overflows: false })));
      expect(incidents).toEqual({ dialogs: [], errors: [] });
    }, 300_000);
  }
});

describe('XSS probes', () => {
  it('when titles, descriptions, comments, branch names and webhook URLs carry markup, then it shows as text and nothing executes', () =>
    withPage(browser, {}, async (page, incidents) => {
      await signInPage(page, gh, 'alice', PASSWORD);
      await visit(page, '/alice/demo/-/merge-requests');
      expect(await page.locator('.mr-list a.subject').allTextContents()).toEqual(['Conflicting notes', XSS_TITLE]);
      await visit(page, '/alice/demo/-/merge-requests/1');
      expect(await page.locator('h1 .mr-title').textContent()).toBe(XSS_TITLE);
      expect(await page.locator('.mr-description h1').textContent()).toBe('Plan');
      expect(await page.locator('.mr-description a', { hasText: 'x' }).getAttribute('href')).toBeNull();
      expect(await page.locator('table.diff-unified tr.d-comments .comment-body').allTextContents()).toEqual(['on the old side', XSS_COMMENT]);
      expect(await page.locator('.conversation .comment-body').allTextContents()).toEqual([`general ${XSS_COMMENT}`]);
      // The description's Markdown keeps a plain image and drops its handler (render/markdown.ts).
      expect(await page.locator('.mr-description img').count()).toBe(1);
      expect(await page.locator('img[onerror]').count()).toBe(0);
      expect(await page.locator('main img').count()).toBe(1);
      await visit(page, '/alice/demo/-/merge-requests/2');
      expect(await page.locator('.mr-header code.branch').first().textContent()).toBe(XSS_BRANCH);
      expect(await page.locator('ul.conflicts code').allTextContents()).toEqual(['notes.txt']);
      await visit(page, `/alice/demo/-/compare?base=main&head=${enc(XSS_BRANCH)}`);
      expect(await page.locator('#compare-head option[selected]').textContent()).toBe(XSS_BRANCH);
      await visit(page, '/alice/demo/-/settings/webhooks');
      expect(await page.locator('a.webhook-url').allTextContents()).toContain(XSS_HOOK);
      expect(await page.locator('img').count()).toBe(0);
      expect(incidents).toEqual({ dialogs: [], errors: [] });
    }), 120_000);
});

describe('the small script', () => {
  it('when a line number is clicked, then the comment form opens in place without a reload, and the comment lands under that line', () =>
    withPage(browser, {}, async (page, incidents) => {
      await signInPage(page, gh, 'alice', PASSWORD);
      await visit(page, '/alice/demo/-/merge-requests/1');
      await page.evaluate('window.marker = 1');
      await page.click('article.diff-file:has-text("src/app.ts") table.diff-unified a[aria-label="Comment on line 3 (new)"]');
      const form = page.locator('tr.d-comment-form form.line-comment-form');
      expect(await form.count()).toBe(1);
      expect(await page.evaluate<number>('window.marker')).toBe(1);
      expect(new URL(page.url()).search).toBe('');
      expect(await form.locator('input[name=line_number]').inputValue()).toBe('3');
      await form.locator('textarea').fill('third line, in place');
      await submit(page, 'tr.d-comment-form button[type=submit]');
      expect(new URL(page.url()).search).toBe('?done=commented');
      expect(await page.locator('article.diff-file:has-text("src/app.ts") table.diff-unified tr.d-comments .comment-body').allTextContents()).toContain('third line, in place');
      expect(incidents).toEqual({ dialogs: [], errors: [] });
    }), 120_000);
});

describe('without script', () => {
  it('when a line number is followed, then the comment form opens under that line and the comment lands there; close and reopen are plain forms', async () => {
    await withPage(browser, { javaScriptEnabled: false }, async (page) => {
      await signInPage(page, gh, 'bob', PASSWORD);
      await visit(page, '/alice/demo/-/merge-requests/1?view=split');
      await submit(page, 'article.diff-file:has-text("src/app.ts") table.diff-split a[aria-label="Comment on line 1 (new)"]');
      expect(await page.locator('table.diff-split form.line-comment-form').count()).toBe(1);
      expect(await page.locator('table.diff-unified form.line-comment-form').count()).toBe(0);
      await page.fill('#line-comment-body', 'first line, new side');
      await submit(page, 'form.line-comment-form button[type=submit]');
      expect(new URL(page.url()).search).toBe('?done=commented');
      expect(await page.locator('table.diff-unified tr.d-comments .comment-body').allTextContents()).toContain('first line, new side');
      const comments = await api(gh, 'GET', '/api/repos/alice/demo/merge-requests/1');
      const mine = (comments.body.comments as { body: string; file_path: string; line_number: number; diff_side: string }[]).find((c) => c.body === 'first line, new side');
      expect(mine && { file_path: mine.file_path, line_number: mine.line_number, diff_side: mine.diff_side }).toEqual({ file_path: 'src/app.ts', line_number: 1, diff_side: 'new' });
    });
    await withPage(browser, { javaScriptEnabled: false }, async (page) => {
      await signInPage(page, gh, 'alice', PASSWORD);
      await visit(page, '/alice/demo/-/merge-requests/3');
      await submit(page, '.merge-box button:text("Reopen")');
      expect(await page.locator('p.notice').textContent()).toBe('The merge request has been reopened.');
      await submit(page, '.merge-box button:text("Close merge request")');
      expect(await page.locator('p.notice').textContent()).toBe('The merge request has been closed.');
      expect(await page.locator('.mr-header .badge').first().textContent()).toBe('closed');
      await submit(page, '.mr-header a:text("Edit")');
      await page.fill('#edit-title', 'Abandoned for now');
      await page.fill('#edit-description', 'Superseded by **#1**.');
      await submit(page, 'form button.primary:text("Save")');
      expect(await page.locator('p.notice').textContent()).toBe('The merge request has been changed.');
      expect(await page.locator('h1 .mr-title').textContent()).toBe('Abandoned for now');
      expect(await page.locator('.mr-description strong').textContent()).toBe('#1');
    });
  }, 120_000);
});

describe('forms and refusals through the gateway', () => {

  it('when each page is asked for, then it carries the security headers', async () => {
    for (const path of PAGES()) {
      const res = await webGet(gh, path, { cookie: cookies.root });
      const csp = res.headers.get('content-security-policy') ?? '';
      expect([path, res.status, csp.includes("script-src 'self'"), csp.includes('unsafe-inline'), res.headers.get('x-content-type-options'), res.headers.get('cache-control')]).toEqual([path, 200, true, false, 'nosniff', 'no-store']);
    }
  });

  it('when a form is posted without its anti-CSRF token, then it is refused and nothing changes', async () => {
    const res = await webPost(gh, '/alice/demo/-/merge-requests/1/state', { state: 'closed' }, { cookie: cookies.alice });
    expect(res.status).toBe(403);
    const mr = await api(gh, 'GET', '/api/repos/alice/demo/merge-requests/1');
    expect(mr.body.state).toBe('open');
  });

  it('when the API refuses a change, then the page shows its message; when it allows one, then 303 back with a notice', async () => {
    const page = await webGet(gh, '/alice/demo/-/merge-requests/1', { cookie: cookies.bob });
    const csrf = csrfOf(page.html);
    const merge = await webPost(gh, '/alice/demo/-/merge-requests/1/merge', { csrf, strategy: 'default' }, { cookie: cookies.bob });
    expect(merge.status).toBe(400);
    expect(textOf(merge.html)).toContain('You do not have write access to this repository');
    const same = await webPost(gh, '/alice/demo/-/merge-requests', { csrf, title: 'Same', source_branch: 'main', target_branch: 'main' }, { cookie: cookies.bob });
    expect(same.status).toBe(400);
    expect(textOf(same.html)).toContain('Source and target branches must be different');
    const comment = await webPost(gh, '/alice/demo/-/merge-requests/1/comments', { csrf, body: 'plain comment' }, { cookie: cookies.bob });
    expect([comment.status, comment.headers.get('location')]).toEqual([303, '/alice/demo/-/merge-requests/1?done=commented']);
    const review = await webPost(gh, '/alice/demo/-/merge-requests/1/reviews', { csrf, event: 'request_changes', body: 'Please rename b.' }, { cookie: cookies.bob });
    expect([review.status, review.headers.get('location')]).toEqual([303, '/alice/demo/-/merge-requests/1?done=reviewed']);
    const blank = await webPost(gh, '/alice/demo/-/merge-requests/1/reviews', { csrf, event: 'request_changes', body: ' ' }, { cookie: cookies.bob });
    expect(blank.status).toBe(400);
    const after = await webGet(gh, '/alice/demo/-/merge-requests/1');
    expect(after.status).toBe(200);
    expect(textOf(after.html)).toContain('bob requested changes');
    expect(textOf(after.html)).toContain('Please rename b.');
    expect(textOf(after.html)).toContain('Sign in to comment or review.');
    expect(after.html).not.toContain('class="stack merge-form"');
    const admin = await webGet(gh, '/-/admin/users/bob', { cookie: cookies.root });
    const short = await webPost(gh, '/-/admin/users/bob/password', { csrf: csrfOf(admin.html), password: 'short' }, { cookie: cookies.root });
    expect(short.status).toBe(400);
    expect(textOf(short.html)).toMatch(/password/i);
  });

  it('when the owner redelivers a delivery from the settings page, then it is sent again and the log shows both attempts', async () => {
    const hookApi = `/api/repos/alice/demo/webhooks/${hookId}/deliveries`;
    const before = await eventually(async () => {
      const list = await api(gh, 'GET', hookApi, { token: aliceToken });
      return list.body.length > 0 && list.body.every((d: { status: string }) => d.status !== 'pending') ? (list.body as { id: string; event: string }[]) : undefined;
    }, 30_000);
    const page = await webGet(gh, `/alice/demo/-/settings/webhooks/${hookId}`, { cookie: cookies.alice });
    const action = `/alice/demo/-/settings/webhooks/${hookId}/deliveries/${before[0]!.id}/redeliver`;
    expect(page.html).toContain(`action="${action}"`);
    const sentBefore = receiver.received.length;
    const res = await webPost(gh, action, { csrf: csrfOf(page.html) }, { cookie: cookies.alice });
    const deliveryPage = `/alice/demo/-/settings/webhooks/${hookId}/deliveries/${before[0]!.id}`;
    expect([res.status, res.headers.get('location')]).toEqual([303, `${deliveryPage}?done=redelivered`]);
    await eventually(() => (receiver.received.length > sentBefore ? true : undefined), 30_000);
    // A redelivery is another attempt of the same delivery: its page shows both answers, and the
    // webhook's page counts them on its line.
    const after = await eventually(async () => {
      const res = await webGet(gh, `${deliveryPage}?done=redelivered`, { cookie: cookies.alice });
      return /Attempt 2: /.test(textOf(res.html)) ? textOf(res.html) : undefined;
    }, 30_000);
    expect(after).toContain('The delivery has been queued again.');
    expect([after.includes('Attempt 1: succeeded'), after.includes('Attempt 2: succeeded')]).toEqual([true, true]);
    const list = textOf((await webGet(gh, `/alice/demo/-/settings/webhooks/${hookId}`, { cookie: cookies.alice })).html);
    expect(list).toMatch(new RegExp(`${before[0]!.event} · .*· 2 attempts`));
    expect(list).not.toContain('Attempt 1: ');
    const detail = await api(gh, 'GET', `${hookApi}/${before[0]!.id}`, { token: aliceToken });
    expect(detail.body.attempt_log.map((a: { status: string; response_status: number }) => [a.status, a.response_status])).toEqual([['succeeded', 204], ['succeeded', 204]]);
  });

  it('when the owner changes visibility, default branch and protection on the settings pages, then the API has them; a bad value is shown, not saved', async () => {
    const general = await webGet(gh, '/alice/demo/-/settings', { cookie: cookies.alice });
    const csrf = csrfOf(general.html);
    const save = (form: Record<string, string>) => webPost(gh, '/alice/demo/-/settings', { csrf, ...form }, { cookie: cookies.alice });
    const saved = await save({ description: 'Demo <b>repo</b>', default_branch: 'feature', visibility: 'private' });
    expect([saved.status, saved.headers.get('location')]).toEqual([303, '/alice/demo/-/settings?done=saved']);
    const repo = await api(gh, 'GET', '/api/repos/alice/demo', { token: aliceToken });
    expect([repo.body.private, repo.body.default_branch, repo.body.description]).toEqual([true, 'feature', 'Demo <b>repo</b>']);
    const bad = await save({ description: '', default_branch: 'no-such-branch', visibility: 'public' });
    expect(bad.status).toBe(400);
    expect(textOf(bad.html)).toContain('no-such-branch');
    expect((await save({ description: '', default_branch: 'main', visibility: 'public' })).status).toBe(303);
    const back = await api(gh, 'GET', '/api/repos/alice/demo', { token: aliceToken });
    expect([back.body.private, back.body.default_branch, back.body.description ?? null]).toEqual([false, 'main', null]);

    const rule = await webPost(gh, '/alice/demo/-/settings/branches', { csrf, pattern: 'release/*', required_approvals: '2', required_status_checks: 'ci/a, ci/b', push: 'nobody', options: 'allow_deletions' }, { cookie: cookies.alice });
    expect([rule.status, rule.headers.get('location')]).toEqual([303, '/alice/demo/-/settings/branches?done=protection-saved']);
    const stored = await api(gh, 'GET', `/api/repos/alice/demo/branch-protections/${encodeURIComponent('release/*')}`, { token: aliceToken });
    expect([stored.body.required_approvals, stored.body.required_status_checks, stored.body.push, stored.body.allow_deletions, stored.body.dismiss_stale_approvals]).toEqual([2, ['ci/a', 'ci/b'], 'nobody', true, false]);
    const tooMany = await webPost(gh, '/alice/demo/-/settings/branches', { csrf, pattern: 'x', required_approvals: '11' }, { cookie: cookies.alice });
    expect([tooMany.status, textOf(tooMany.html).includes('from 0 to 10')]).toEqual([400, true]);
    const removed = await webPost(gh, '/alice/demo/-/settings/branches/delete', { csrf, pattern: 'release/*' }, { cookie: cookies.alice });
    expect(removed.status).toBe(303);
    expect((await api(gh, 'GET', `/api/repos/alice/demo/branch-protections/${encodeURIComponent('release/*')}`, { token: aliceToken })).status).toBe(404);
  });

  it('when a site admin creates a user on the admin page and suspends her, then she cannot sign in until unsuspended', async () => {
    const list = await webGet(gh, '/-/admin/users', { cookie: cookies.root });
    const csrf = csrfOf(list.html);
    const created = await webPost(gh, '/-/admin/users', { csrf, username: 'carol', email: 'carol@example.com', password: PASSWORD }, { cookie: cookies.root });
    expect([created.status, created.headers.get('location')]).toEqual([303, '/-/admin/users/carol?done=created']);
    const dup = await webPost(gh, '/-/admin/users', { csrf, username: 'carol', email: 'carol2@example.com' }, { cookie: cookies.root });
    expect(dup.status).toBe(409);
    expect(textOf(dup.html)).toContain('carol');
    expect((await api(gh, 'POST', '/api/sessions', { body: { username: 'carol', password: PASSWORD } })).status).toBe(201);
    const suspended = await webPost(gh, '/-/admin/users/carol/suspend', { csrf, suspended: 'true' }, { cookie: cookies.root });
    expect([suspended.status, suspended.headers.get('location')]).toEqual([303, '/-/admin/users/carol?done=suspended']);
    expect((await api(gh, 'POST', '/api/sessions', { body: { username: 'carol', password: PASSWORD } })).status).toBe(401);
    const shown = await webGet(gh, '/-/admin/users/carol?done=suspended', { cookie: cookies.root });
    expect(textOf(shown.html)).toContain('The user has been suspended.');
    expect(shown.html).toContain('>Unsuspend</button>');
    expect((await webPost(gh, '/-/admin/users/carol/suspend', { csrf, suspended: 'false' }, { cookie: cookies.root })).status).toBe(303);
    expect((await api(gh, 'POST', '/api/sessions', { body: { username: 'carol', password: PASSWORD } })).status).toBe(201);
  });

  it('when a site admin issues a token for a user on the admin page, then it works as that user; what the API refuses is shown or the 404 page', async () => {
    const page = await webGet(gh, '/-/admin/users/bob', { cookie: cookies.root });
    const csrf = csrfOf(page.html);
    // bob is no site admin: the admin scope is not offered, and posted anyway the API's 400 shows.
    expect(page.html).not.toContain('name="scopes" value="admin"');
    const refused = await webPost(gh, '/-/admin/users/bob/tokens', { csrf, name: 'too much', scopes: 'admin', expires_in_days: '7' }, { cookie: cookies.root });
    expect([refused.status, textOf(refused.html).includes('The "admin" scope is only for site admins')]).toEqual([400, true]);
    const res = await webPost(gh, '/-/admin/users/bob/tokens', { csrf, name: 'reader', scopes: 'read', expires_in_days: '30' }, { cookie: cookies.root });
    expect([res.status, res.headers.get('location')]).toEqual([303, '/-/admin/users/bob']);
    const notice = cookiePair(res.headers.getSetCookie().find((c) => c.startsWith('githost_notice=')));
    const shown = await webGet(gh, '/-/admin/users/bob', { cookie: `${cookies.root}; ${notice}` });
    const token = /id="new-token" type="text" readonly value="([^"]+)"/.exec(shown.html)![1]!;
    const me = await api(gh, 'GET', '/api/user', { token });
    expect([me.status, me.body.username]).toEqual([200, 'bob']);
    const listed = await api(gh, 'GET', '/api/admin/users/bob/tokens', { token: gh.adminToken });
    const reader = (listed.body as { name: string; scopes: string[]; expires_at: string }[]).find((t) => t.name === 'reader')!;
    expect(reader.scopes).toEqual(['read']);
    expect(Math.round((Date.parse(reader.expires_at) - Date.now()) / 86_400_000)).toBe(30);
    expect((await webGet(gh, '/-/admin/users/bob', { cookie: cookies.root })).html).not.toContain(token);
    const missing = await webPost(gh, '/-/admin/users/nobody/tokens', { csrf, name: 'x', scopes: 'read', expires_in_days: '7' }, { cookie: cookies.root });
    expect(missing.status).toBe(404);
    const asBob = await webGet(gh, '/-/settings/tokens', { cookie: cookies.bob });
    const byBob = await webPost(gh, '/-/admin/users/bob/tokens', { csrf: csrfOf(asBob.html), name: 'mine', scopes: 'read', expires_in_days: '7' }, { cookie: cookies.bob });
    expect(byBob.status).toBe(404);
    const after = await api(gh, 'GET', '/api/admin/users/bob/tokens', { token: gh.adminToken });
    expect((after.body as { name: string }[]).map((t) => t.name).sort()).toEqual(['e2e', 'reader']);
  });

  it('when a page is hidden from the caller, then it is the same 404 page as one that does not exist', async () => {
    const missing = await webGet(gh, '/alice/nothing/-/merge-requests', { cookie: cookies.bob });
    expect(missing.status).toBe(404);
    const cases: [string, string | undefined][] = [
      ['/alice/secret/-/merge-requests', cookies.bob],
      ['/alice/secret/-/merge-requests/1', undefined],
      ['/alice/secret/-/compare?base=main&head=feature', cookies.bob],
      ['/alice/demo/-/settings', cookies.bob],
      ['/alice/demo/-/settings/webhooks', cookies.bob],
      // The webhook API answers a reader or writer itself; the page asks it only for the owner.
      [`/alice/demo/-/settings/webhooks/${hookId}`, cookies.bob],
      [`/alice/demo/-/settings/webhooks/${hookId}/deliveries/${pingId}`, cookies.bob],
      ['/alice/demo/-/merge-requests/99', cookies.bob],
      ['/alice/demo/-/merge-requests/abc', cookies.bob],
      ['/-/admin/users', cookies.alice],
      ['/-/admin/users/bob', cookies.bob],
    ];
    const main = (html: string) => /<main[^>]*>([\s\S]*)<\/main>/.exec(html)![1];
    for (const [path, cookie] of cases) {
      const res = await webGet(gh, path, cookie ? { cookie } : {});
      expect([path, res.status, main(res.html)]).toEqual([path, 404, main(missing.html)]);
    }
  });
});

describe('what a screen reader is told', () => {
  it('when a diff is read, then each added or removed line is named so, not only by its hidden sign and its colour', () =>
    withPage(browser, {}, async (page) => {
      await visit(page, '/alice/demo/-/merge-requests/1');
      const file = page.locator('article.diff-file', { hasText: 'src/app.ts' });
      expect(await file.getByRole('cell', { name: 'Removed line: export const b = 2;', exact: true }).count()).toBe(1);
      expect(await file.getByRole('cell', { name: 'Added line: export const b = 20;', exact: true }).count()).toBe(1);
      expect(await file.getByRole('cell', { name: 'export const a = 1;', exact: true }).count()).toBe(1);
      // The hidden text stays out of what is copied from the page.
      await file.locator('table.diff-unified tr.d-add td.dl').evaluate((td) => {
        const doc = (td as unknown as { ownerDocument: { createRange(): { selectNodeContents(n: unknown): void }; getSelection(): { removeAllRanges(): void; addRange(r: unknown): void } } }).ownerDocument;
        const range = doc.createRange();
        range.selectNodeContents(td);
        doc.getSelection().removeAllRanges();
        doc.getSelection().addRange(range);
      });
      expect(await page.evaluate('String(getSelection())')).toBe('+export const b = 20;');
    }), 120_000);

  it('when another session is listed on the sessions page, then its button is named for ending that session, and only the header says "Sign out"', async () => {
    const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
    await withPage(browser, { userAgent: FIREFOX }, (page) => signInPage(page, gh, 'bob', PASSWORD));
    await withPage(browser, {}, async (page) => {
      await signInPage(page, gh, 'bob', PASSWORD);
      await visit(page, '/-/settings/sessions');
      expect(await page.getByRole('button', { name: 'Sign out', exact: true }).count()).toBe(1);
      const end = page.getByRole('button', { name: `End the session on ${FIREFOX}`, exact: true });
      expect(await end.count()).toBe(1);
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), end.click()]);
      expect(await page.locator('p.notice').textContent()).toBe('The session has been ended.');
      const left = await api(gh, 'GET', '/api/user/sessions', { token: decodeURIComponent(cookies.bob!.slice('githost_session='.length)) });
      expect((left.body as { user_agent: string | null }[]).some((s) => s.user_agent === FIREFOX)).toBe(false);
    });
  }, 120_000);
});

describe('a new token, shown once', () => {
  const tokenNamed = async (owner: string, name: string) =>
    ((await api(gh, 'GET', `/api/admin/users/${owner}/tokens`, { token: gh.adminToken })).body as { name: string }[]).filter((t) => t.name === name).length;

  for (const where of [
    { who: 'alice', page: '/-/settings/tokens', form: '/-/settings/tokens', owner: 'alice' },
    { who: 'root', page: '/-/admin/users/alice', form: '/-/admin/users/alice/tokens', owner: 'alice' },
  ]) {
    it(`when ${where.who} issues a token on ${where.page} and reloads, then it was issued once, is shown once, and is in no URL`, () =>
      withPage(browser, {}, async (page) => {
        const name = `once-${where.who}`;
        const urls: string[] = [];
        const navigations: string[] = [];
        page.on('request', (r) => {
          urls.push(r.url());
          if (r.isNavigationRequest()) navigations.push(`${r.method()} ${new URL(r.url()).pathname}`);
        });
        await signInPage(page, gh, where.who, PASSWORD);
        await visit(page, where.page);
        await page.fill('#token-name', name);
        await submit(page, `form[action="${where.form}"] button[type=submit]`);
        // Post/redirect/get: the page showing the token is a GET, so a reload is one too.
        expect(navigations.slice(-2)).toEqual([`POST ${where.form}`, `GET ${where.page}`]);
        expect(page.url()).toBe(gh.url + where.page);
        const token = await page.locator('#new-token').inputValue();
        const me = await api(gh, 'GET', '/api/user', { token });
        expect([me.status, me.body.username]).toEqual([200, where.owner]);
        expect(await tokenNamed(where.owner, name)).toBe(1);
        await page.reload({ waitUntil: 'load' });
        expect(navigations.at(-1)).toBe(`GET ${where.page}`);
        expect(await page.locator('#new-token').count()).toBe(0);
        expect(await page.content()).not.toContain(token);
        expect(await tokenNamed(where.owner, name)).toBe(1);
        expect(urls.filter((u) => u.includes(token))).toEqual([]);
      }), 120_000);
  }
});

describe('the changes a merge request page shows', () => {
  const filesOn = (page: Page) => page.locator('article.diff-file h3').allTextContents();

  it('when the target has a commit after the branch point, then the page shows the changes from the merge base (as a merge would bring them) and says so, while the API keeps its tip-to-tip diff', () =>
    withPage(browser, {}, async (page) => {
      const detail = await api(gh, 'GET', '/api/repos/alice/demo/merge-requests/1', { token: aliceToken });
      // The API's diff is the seed's: main's own "main notes" shows there as removed.
      expect((detail.body.diff as { path: string }[]).map((f) => f.path)).toEqual(['notes.txt', 'src/app.ts']);
      const history = await api(gh, 'GET', '/api/repos/alice/demo/commits/feature', { token: aliceToken });
      const branchPoint = (history.body.commits as { sha: string; message: string }[]).find((c) => c.message.startsWith('First commit'))!.sha;
      await visit(page, '/alice/demo/-/merge-requests/1');
      expect(await filesOn(page)).toEqual(['modified src/app.ts']);
      const said = await page.locator('p.diff-base').textContent();
      expect(said).toContain(`Changes from the merge base ${branchPoint.slice(0, 8)} of main and feature`);
      expect(await page.locator('p.diff-base a').getAttribute('href')).toBe(`/alice/demo/-/commit/${branchPoint}`);
      expect(await page.locator('.diff-toolbar p').first().textContent()).toBe('1 file changed, +1 −1');
    }), 120_000);

  it('when a closed merge request\'s source branch is deleted, then the page still shows what it proposed, from its last recorded head, and says the branch is gone', async () => {
    const work = makeWorkdir();
    const remote = pushUrl(gh, 'alice', aliceToken, 'alice', 'demo');
    await git(work, 'init', '-q', '-b', 'main');
    await git(work, 'fetch', '-q', remote, 'main');
    await git(work, 'checkout', '-q', '-b', 'gone', 'FETCH_HEAD');
    await commitFiles(work, { 'gone.txt': 'proposed\n' }, 'Propose gone.txt');
    const head = (await git(work, 'rev-parse', 'HEAD')).trim();
    await git(work, 'push', '-q', remote, 'gone');
    const mr = await api(gh, 'POST', '/api/repos/alice/demo/merge-requests', { token: aliceToken, body: { title: 'Gone branch', source_branch: 'gone', target_branch: 'main' } });
    expect(mr.status).toBe(201);
    const number = mr.body.number as number;
    expect((await api(gh, 'PATCH', `/api/repos/alice/demo/merge-requests/${number}`, { token: aliceToken, body: { state: 'closed' } })).status).toBe(200);
    await git(work, 'push', '-q', remote, ':refs/heads/gone');
    const detail = await api(gh, 'GET', `/api/repos/alice/demo/merge-requests/${number}`, { token: aliceToken });
    expect([detail.body.source_sha, detail.body.head_sha, detail.body.diff]).toEqual([undefined, head, []]);
    await withPage(browser, {}, async (page) => {
      await visit(page, `/alice/demo/-/merge-requests/${number}`);
      expect(await filesOn(page)).toEqual(['added gone.txt']);
      expect(await page.locator('p.diff-base').textContent()).toContain(`gone's last recorded head ${head.slice(0, 8)} (the branch is gone)`);
    });
  }, 120_000);
});
