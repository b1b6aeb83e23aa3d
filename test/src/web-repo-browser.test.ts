import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, createRepo, git, makeWorkdir, pushUrl, startTestGithost, type TestGithost } from './support/index.js';
import { atViewport, launchBrowser, readPages, VIEWPORTS, withPage, type Browser, type Page } from '@githost/test-support/browser';
import { visitPage } from './support/web-session.js';

/**
 * The repository page, Explore and the merge-request actions in a real browser (Debian's
 * chromium): axe finds nothing serious at 375 and 1440 px, light and dark; at 1440 px the tab bar
 * starts where the content does, and Merge and Close are one row of actions.
 */
let gh: TestGithost;
let browser: Browser;
let session: string;

const PASSWORD = 'alice has a long password';

beforeAll(async () => {
  gh = await startTestGithost();
  const user = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: 'alice', email: 'alice@example.com', password: PASSWORD } });
  expect(user.status).toBe(201);
  session = (await api(gh, 'POST', '/api/sessions', { body: { username: 'alice', password: PASSWORD } })).body.secret as string;
  await createRepo(gh, session, 'demo', { description: 'A demo' });
  await createRepo(gh, session, 'empty');
  await createRepo(gh, session, 'tagged');
  await createRepo(gh, session, 'secret', { private: true });
  const work = makeWorkdir();
  await commitFiles(work, { 'README.md': '# Demo\n', 'src/main.ts': 'export const x = 1;\n' }, 'First commit');
  await git(work, 'checkout', '-q', '-b', 'feature');
  await commitFiles(work, { 'src/main.ts': 'export const x = 2;\n' }, 'Change x');
  await git(work, 'tag', 'v1.0');
  const token = (await api(gh, 'POST', '/api/user/tokens', { token: session, body: { name: 'push', scopes: ['read', 'write'] } })).body.token as string;
  await git(work, 'push', '-q', pushUrl(gh, 'alice', token, 'alice', 'demo'), 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*');
  await git(work, 'push', '-q', pushUrl(gh, 'alice', token, 'alice', 'tagged'), 'refs/tags/v1.0:refs/tags/v1.0');
  expect((await api(gh, 'POST', '/api/repos/alice/demo/merge-requests', { token, body: { title: 'Change x', source_branch: 'feature', target_branch: 'main' } })).status).toBe(201);
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await gh?.stop();
});

const PAGES = ['/', '/-/explore', '/-/explore?q=demo', '/-/explore/users', '/alice/demo', '/alice/demo/-/tree/main/src', '/alice/empty', '/alice/tagged', '/alice/demo/-/merge-requests/1'];

/** Signs the browser in with the session the API issued (the web's own cookie). */
const signIn = (page: Page) => page.context().addCookies([{ name: 'githost_session', value: encodeURIComponent(session), url: gh.url }]);

describe('the repository page and Explore in a browser', () => {
  for (const viewport of VIEWPORTS) {
    it(`when read at ${viewport.width} px in ${viewport.colorScheme} mode, anonymous and signed in, then axe finds no serious or critical violation and nothing overflows`, async () => {
      for (const prepare of [undefined, signIn]) {
        const { readings, incidents } = await readPages(browser, viewport, PAGES, { open: (page, path) => visitPage(page, gh, path), ...(prepare && { prepare }) });
        expect(readings).toEqual(PAGES.map((path) => ({ path, status: 200, violations: [], overflows: false })));
        expect(incidents).toEqual({ dialogs: [], errors: [] });
      }
    }, 180_000);
  }

  it('when the repository page is read at 1440 px, then its title and tab bar start where the content does', () =>
    withPage(browser, atViewport({ width: 1440, colorScheme: 'light' }), async (page) => {
      await visitPage(page, gh, '/alice/demo');
      const left = (selector: string) => page.locator(selector).first().evaluate((e) => Math.round(e.getBoundingClientRect().left));
      const content = await left('main .description');
      expect(content).toBeGreaterThan(100);
      expect(await left('.repo-title')).toBe(content);
      // The first tab's box starts at the column; its text sits inside its padding.
      expect(await left('nav[aria-label=Repository]')).toBe(content);
    }));

  for (const width of [1440, 375]) {
    it(`when an open merge request is read at ${width} px by someone who may merge, then Merge and Close are one row of actions, no further apart than the row's spacing`, () =>
      withPage(browser, atViewport({ width, colorScheme: 'light' }), async (page) => {
        await signIn(page);
        await visitPage(page, gh, '/alice/demo/-/merge-requests/1');
        const box = (name: string) => page.getByRole('button', { name, exact: true }).boundingBox();
        const merge = await box('Merge');
        const close = await box('Close merge request');
        expect(merge && close).toBeTruthy();
        // One row: the same top and bottom, Close right after Merge.
        expect(Math.abs(merge!.y - close!.y)).toBeLessThanOrEqual(1);
        expect(Math.abs(merge!.y + merge!.height - (close!.y + close!.height))).toBeLessThanOrEqual(1);
        // A string, evaluated in the page: this workspace compiles without the DOM's declarations.
        const spacing = await page.evaluate<number>(`parseFloat(getComputedStyle(document.querySelector('.merge-actions')).columnGap)`);
        const gap = close!.x - (merge!.x + merge!.width);
        expect(gap).toBeGreaterThan(0);
        expect(gap).toBeLessThanOrEqual(spacing + 1);
      }));
  }
});
