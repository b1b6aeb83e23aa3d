import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateSshKey } from '@githost/test-support';
import { launchBrowser, readPages, VIEWPORTS, withPage, type Browser, type Page } from '@githost/test-support/browser';
import { startAccountsApi, type AccountsApi } from './support/accounts-api.js';
import { startWeb, type RunningWeb } from './support/web.js';

/** The signed-in pages in Debian's chromium, against the real accounts service: signing in with the
 *  form, accessibility at 375 and 1440 px in light and dark mode, a token shown once, SSH keys and
 *  deploy keys added and deleted through their forms. */
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

/** Opens `path` signed out, signs in as alice on the sign-in page it leads to, and comes back. */
async function signIn(page: Page, path = '/-/settings/tokens'): Promise<void> {
  await page.goto(base + path);
  expect(new URL(page.url()).pathname).toBe('/-/sign-in');
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(base + path);
}

describe('signed-in pages in a browser', () => {
  for (const viewport of VIEWPORTS) {
    it(`when read at ${viewport.width} px in ${viewport.colorScheme} mode, then axe finds no serious or critical violation and nothing runs that should not`, async () => {
      const paths = ['/', '/-/new', '/-/settings', '/-/settings/sessions', '/-/settings/tokens', '/-/settings/keys', '/-/settings/applications', '/-/sign-in'];
      const { readings, incidents } = await readPages(browser, viewport, paths, { prepare: (page) => signIn(page), open: async (page, path) => (await page.goto(base + path))?.status() ?? 0 });
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

/** Settings → SSH keys and repository Settings → Deploy keys (docs/decisions/ssh-keys.md). */
describe('SSH key pages in a browser', () => {
  it('when a key is added and deleted through the Settings form, then the API holds it with its fingerprint and then not; a private key is refused on the form', () =>
    withPage(browser, {}, async (page) => {
      await signIn(page, '/-/settings/keys');
      const made = await generateSshKey('ed25519', { comment: 'alice@laptop' });
      await page.getByLabel('Title').fill('Laptop');
      await page.getByLabel('Key').fill(made.publicKey);
      await page.getByRole('button', { name: 'Add key' }).click();
      await page.waitForURL(`${base}/-/settings/keys?done=key-added`);
      expect(await page.getByText('The SSH key has been added.').count()).toBe(1);
      expect(await page.getByText(made.fingerprint).count()).toBe(1);
      const secret = await api.signIn('alice');
      expect((await api.request('GET', '/api/user/keys', secret)).body).toEqual([expect.objectContaining({ title: 'Laptop', fingerprint: made.fingerprint })]);

      await page.getByLabel('Key').fill(made.privateKey);
      await page.getByRole('button', { name: 'Add key' }).click();
      await page.waitForLoadState('load');
      expect(await page.getByText(/this is a private key/).count()).toBe(1);

      await page.getByRole('button', { name: 'Delete Laptop' }).click();
      await page.waitForURL(`${base}/-/settings/keys?done=key-deleted`);
      expect(await page.getByText('You have no SSH keys.').count()).toBe(1);
      expect((await api.request('GET', '/api/user/keys', secret)).body).toEqual([]);
    }), 120_000);

  it('when the owner adds a deploy key with write access in the repository settings, then it is listed read and write and deletes', () =>
    withPage(browser, {}, async (page) => {
      const secret = await api.signIn('alice');
      expect((await api.request('POST', '/api/repos', secret, { name: 'deployed' })).status).toBe(201);
      await signIn(page, '/alice/deployed/-/settings/keys');
      const made = await generateSshKey('ecdsa', { bits: 256 });
      await page.getByLabel('Title').fill('CI');
      await page.getByLabel('Key').fill(made.publicKey);
      await page.getByLabel('Allow write access (pushes)').check();
      await page.getByRole('button', { name: 'Add key' }).click();
      await page.waitForURL(`${base}/alice/deployed/-/settings/keys?done=key-added`);
      expect(await page.getByText('read and write').count()).toBe(1);
      expect((await api.request('GET', '/api/repos/alice/deployed/keys', secret)).body).toEqual([expect.objectContaining({ title: 'CI', fingerprint: made.fingerprint, read_only: false })]);
      await page.getByRole('button', { name: 'Delete CI' }).click();
      await page.waitForURL(`${base}/alice/deployed/-/settings/keys?done=key-deleted`);
      expect((await api.request('GET', '/api/repos/alice/deployed/keys', secret)).body).toEqual([]);
    }), 120_000);
});
