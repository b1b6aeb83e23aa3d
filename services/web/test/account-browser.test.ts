import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { launchBrowser, readPages, VIEWPORTS, withPage, type Browser, type Page } from '@githost/test-support/browser';
import { startAccountsApi, type AccountsApi } from './support/accounts-api.js';
import { startWeb, type RunningWeb } from './support/web.js';

/** The signed-in pages in Debian's chromium, against the real accounts service: signing in with the
 *  form, accessibility at 375 and 1440 px in light and dark mode, a token shown once. */
let api: AccountsApi;
let web: RunningWeb['web'];
let base: string;
let browser: Browser;

beforeAll(async () => {
  api = await startAccountsApi();
  ({ web, base } = await startWeb(api.url));
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await web?.stop();
  await api?.close();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${base}/-/settings/tokens`);
  expect(new URL(page.url()).pathname).toBe('/-/sign-in');
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/-/settings/tokens`);
}

describe('signed-in pages in a browser', () => {
  for (const viewport of VIEWPORTS) {
    it(`when read at ${viewport.width} px in ${viewport.colorScheme} mode, then axe finds no serious or critical violation and nothing runs that should not`, async () => {
      const paths = ['/', '/-/new', '/-/settings', '/-/settings/sessions', '/-/settings/tokens', '/-/settings/keys', '/-/sign-in'];
      const { readings, incidents } = await readPages(browser, viewport, paths, { prepare: signIn, open: async (page, path) => (await page.goto(base + path))?.status() ?? 0 });
      expect(readings.map(({ path, violations, overflows }) => ({ path, violations, overflows }))).toEqual(paths.map((path) => ({ path, violations: [], overflows: false })));
      expect(incidents).toEqual({ dialogs: [], errors: [] });
    }, 120_000);
  }

  it('when a token is created in the browser, then it is shown once with a copy button, and signing out ends the session', () =>
    withPage(browser, {}, async (page) => {
      await signIn(page);
      await page.getByLabel('Name').fill('laptop');
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.waitForLoadState('load');
      const token = await page.locator('#new-token').inputValue();
      expect(token).toMatch(/^ghs_[A-Za-z0-9_-]{43}$/);
      expect(await page.getByRole('button', { name: 'Copy to clipboard' }).count()).toBe(1);
      await page.goto(`${base}/-/settings/tokens`);
      expect(await page.locator('#new-token').count()).toBe(0);
      expect(await page.content()).not.toContain(token);
      const secret = decodeURIComponent((await page.context().cookies()).find((c) => c.name === 'githost_session')!.value);
      expect(await api.accepts(secret)).toBe(true);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${base}/`);
      expect(await page.getByRole('link', { name: 'Sign in' }).count()).toBeGreaterThan(0);
      expect(await api.accepts(secret)).toBe(false);
    }), 120_000);
});
