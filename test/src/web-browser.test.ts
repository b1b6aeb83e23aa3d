import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, createRepo, createUser, git, makeWorkdir, pushUrl, startTestGithost, type TestGithost, type TestUser } from './support/index.js';
import { atViewport, launchBrowser, readPages, seriousAxeViolations, VIEWPORTS, withPage, type Browser, type Page } from '@githost/test-support/browser';
import { visitPage } from './support/web-session.js';

/**
 * The site in a real browser (Debian's chromium through playwright-core): accessibility (axe,
 * no serious or critical violation) at 375 and 1440 px, light and dark; XSS probes in file
 * names, contents, the README, branch names and commit messages execute nothing; the small
 * script's enhancements work and every page works without it (services/web/README.md#tests).
 */
let gh: TestGithost;
let alice: TestUser;
let browser: Browser;
let head: string;
let first: string;

const ALICE_PASSWORD = 'alice has a long password';
const XSS_BRANCH = 'xss/"><img-src=x-onerror=alert(5)>';
const XSS_FILE = '"><img src=x onerror=alert(1)>.txt';

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  await api(gh, 'PUT', '/api/admin/users/alice/password', { token: gh.adminToken, body: { password: ALICE_PASSWORD } });
  await createRepo(gh, alice.token, 'demo', { description: '<script>alert(8)</script>' });
  await createRepo(gh, alice.token, 'secret', { private: true });
  const work = makeWorkdir();
  await commitFiles(
    work,
    {
      'README.md': '# Demo <script>alert(2)</script>\n\n<img src=x onerror=alert(3)>\n\n[click](javascript:alert(4)) and [guide](docs/guide.md)\n',
      'docs/guide.md': 'guide\n',
      [XSS_FILE]: '<script>alert(6)</script>\n',
      'src/main.ts': Array.from({ length: 40 }, (_, i) => `export const v${i} = "<script>alert(${i})</script>";`).join('\n') + '\n',
    },
    'First commit',
  );
  first = (await git(work, 'rev-parse', 'HEAD')).trim();
  await commitFiles(work, { 'src/main.ts': 'export const changed = 1;\n' }, '<script>alert(7)</script> "><img src=x onerror=alert(9)>');
  head = (await git(work, 'rev-parse', 'HEAD')).trim();
  await git(work, 'branch', XSS_BRANCH);
  await git(work, 'tag', 'v1.0');
  for (const repo of ['demo', 'secret']) await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', repo), 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*');
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await gh?.stop();
});

const enc = (s: string) => s.split('/').map(encodeURIComponent).join('/');
const PAGES = () => [
  '/',
  '/-/sign-in',
  '/alice',
  '/alice/demo',
  `/alice/demo/-/tree/${enc(XSS_BRANCH)}`,
  `/alice/demo/-/blob/main/${encodeURIComponent(XSS_FILE)}`,
  '/alice/demo/-/blob/main/src/main.ts',
  '/alice/demo/-/commits/main',
  `/alice/demo/-/commit/${head}`,
  `/alice/demo/-/commit/${head}?view=split`,
  '/alice/demo/-/branches',
  '/alice/demo/-/tags',
  '/alice/demo/-/refs?view=blob&ref=main&path=src%2Fmain.ts',
  '/alice/secret',
];

const visit = (page: Page, path: string) => visitPage(page, gh, path);

describe('every page in a browser', () => {
  for (const viewport of VIEWPORTS) {
    it(`when read at ${viewport.width} px in ${viewport.colorScheme} mode, then axe finds no serious or critical violation, nothing runs that should not, and nothing overflows the width`, async () => {
      const { readings, incidents } = await readPages(browser, viewport, PAGES(), { open: visit });
      expect(readings).toEqual(PAGES().map((path) => ({ path, status: path === '/alice/secret' ? 404 : 200, violations: [], overflows: false })));
      expect(incidents).toEqual({ dialogs: [], errors: [] });
    }, 180_000);
  }
});

describe('XSS probes', () => {
  it('when names, contents, the README, branches and messages carry markup, then it shows as text and nothing executes', () =>
    withPage(browser, {}, async (page, incidents) => {
      await visit(page, '/alice/demo');
      expect((await page.locator('.readme h1').textContent())?.trim()).toBe('Demo');
      expect(await page.locator('p.description').textContent()).toBe('<script>alert(8)</script>');
      expect(await page.locator('.readme a', { hasText: 'click' }).getAttribute('href')).toBeNull();
      expect(await page.locator('table.tree a', { hasText: 'onerror' }).textContent()).toBe(XSS_FILE);
      await visit(page, `/alice/demo/-/blob/main/${encodeURIComponent(XSS_FILE)}`);
      expect(await page.locator('table.code td.line').first().textContent()).toBe('<script>alert(6)</script>');
      await visit(page, '/alice/demo/-/branches');
      expect(await page.locator('.ref-list a', { hasText: 'xss/' }).textContent()).toBe(XSS_BRANCH);
      await page.locator('.ref-list a', { hasText: 'xss/' }).click();
      await page.waitForLoadState('load');
      expect(await page.locator('.ref-switcher summary strong').textContent()).toBe(XSS_BRANCH);
      await visit(page, `/alice/demo/-/commit/${head}`);
      expect(await page.locator('h1.page-title').textContent()).toBe('<script>alert(7)</script> "><img src=x onerror=alert(9)>');
      expect(await page.locator('img').count()).toBe(0);
      expect(incidents).toEqual({ dialogs: [], errors: [] });
    }), 120_000);
});

describe('the small script', () => {
  it('when a line range is linked, then its lines are marked; when the diff view is toggled, then it changes without a reload', () =>
    withPage(browser, {}, async (page) => {
      await visit(page, `/alice/demo/-/blob/${first}/src/main.ts#L2-L4`);
      expect(await page.locator('table.code tr.selected').evaluateAll((rows) => rows.map((r) => r.id))).toEqual(['L2', 'L3', 'L4']);
      expect(await page.locator('.clone-box button.copy').count()).toBe(0);
      await visit(page, '/alice/demo');
      expect(await page.locator('.clone-box button.copy').count()).toBe(1);
      await visit(page, `/alice/demo/-/commit/${head}`);
      await page.evaluate('window.marker = 1');
      await page.locator('a[data-diff-view=split]').click();
      expect(await page.locator('section.diffs').getAttribute('data-view')).toBe('split');
      expect(await page.locator('table.diff-split').first().isVisible()).toBe(true);
      expect(await page.locator('table.diff-unified').first().isVisible()).toBe(false);
      expect(await page.evaluate<number>('window.marker')).toBe(1);
      expect(page.url()).toContain('view=split');
    }), 120_000);

  it('when the ref switcher of a file is opened, then its branches and tags are loaded into it and lead to the same file at that ref', () =>
    withPage(browser, {}, async (page, incidents) => {
      await visit(page, '/alice/demo/-/blob/main/src/main.ts');
      await page.locator('.ref-switcher summary').click();
      const branch = page.locator('.ref-switcher .ref-menu a', { hasText: 'xss/' });
      expect(await branch.textContent()).toBe(XSS_BRANCH);
      expect(await page.locator('.ref-switcher .ref-menu a[aria-current=true]').textContent()).toBe('main');
      expect(await branch.getAttribute('href')).toBe(`/alice/demo/-/blob/${enc(XSS_BRANCH)}/src/main.ts`);
      expect(incidents).toEqual({ dialogs: [], errors: [] });
    }), 120_000);

  it('when script is off, then reading works and the diff toggle is a plain link', () =>
    withPage(browser, { javaScriptEnabled: false }, async (page) => {
      await visit(page, '/alice/demo');
      await page.locator('table.tree a', { hasText: /^src$/ }).click();
      await page.locator('table.tree a', { hasText: 'main.ts' }).click();
      expect(await page.locator('#L1 td.line').textContent()).toContain('export const changed = 1;');
      await page.locator('.ref-switcher summary').click();
      await page.locator('.ref-switcher a', { hasText: 'Switch branch or tag' }).click();
      await page.locator('.ref-menu a', { hasText: 'xss/' }).click();
      expect(await page.locator('.ref-switcher summary strong').textContent()).toBe(XSS_BRANCH);
      expect(await page.locator('nav.breadcrumbs [aria-current=page]').textContent()).toBe('main.ts');
      await visit(page, `/alice/demo/-/commit/${head}`);
      await page.locator('a[data-diff-view=split]').click();
      await page.waitForLoadState('load');
      expect(await page.locator('section.diffs').getAttribute('data-view')).toBe('split');
    }), 120_000);
});

describe('signed in, in a browser', () => {
  it('when alice signs in with the form, then her private repository reads, the signed-in pages pass axe, and signing out hides it again', () =>
    withPage(browser, atViewport({ width: 375, colorScheme: 'dark' }), async (page, incidents) => {
      expect(await visit(page, '/alice/secret')).toBe(404);
      await visit(page, '/-/sign-in?next=%2Falice%2Fsecret');
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill(ALICE_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${gh.url}/alice/secret`);
      expect(await page.locator('.repo-title .badge').textContent()).toBe('Private');
      for (const path of ['/', '/alice/secret', '/-/settings', '/-/settings/sessions', '/-/settings/tokens', '/-/new']) {
        expect([path, await visit(page, path)]).toEqual([path, 200]);
        expect([path, await seriousAxeViolations(page)]).toEqual([path, []]);
      }
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${gh.url}/`);
      expect(await visit(page, '/alice/secret')).toBe(404);
      expect(incidents).toEqual({ dialogs: [], errors: [] });
    }), 120_000);
});
