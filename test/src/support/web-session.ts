import type { Page } from 'playwright-core';
import type { TestGithost } from './githost.js';

/** Signs in through the sign-in page as a person would; the browser context keeps the cookie. */
export async function signInPage(page: Page, gh: Pick<TestGithost, 'url'>, username: string, password: string): Promise<void> {
  await page.goto(`${gh.url}/-/sign-in`);
  await page.fill('#username', username);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/-/sign-in')), page.click('form.stack button[type=submit]')]);
}

/** Opens a page of the site and waits for it to load; the status it answered (0 if none). */
export async function visitPage(page: Page, gh: Pick<TestGithost, 'url'>, path: string): Promise<number> {
  const res = await page.goto(gh.url + path, { waitUntil: 'load' });
  return res?.status() ?? 0;
}

/** Submits the form a button is in and waits for the next page. */
export async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
}
