import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateSshKey } from '@githost/test-support';
import { launchBrowser, withPage, type Browser, type Page } from '@githost/test-support/browser';
import { startAccountsApi, type AccountsApi } from './support/accounts-api.js';
import { startWeb, type RunningWeb } from './support/web.js';

/** Settings → SSH keys and repository Settings → Deploy keys in Debian's chromium, against the
 *  real accounts service behind the gateway (docs/decisions/ssh-keys.md). */
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

async function signInAt(page: Page, path: string): Promise<void> {
  await page.goto(base + path);
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(base + path);
}

describe('SSH key pages in a browser', () => {
  it('when a key is added and deleted through the Settings form, then the API holds it with its fingerprint and then not; a private key is refused on the form', () =>
    withPage(browser, {}, async (page) => {
      await signInAt(page, '/-/settings/keys');
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
      await signInAt(page, '/alice/deployed/-/settings/keys');
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
