import type { Page } from 'playwright-core';
import type { TestGithost } from './githost.js';

/** Signs in through the sign-in page as a person would; the browser context keeps the cookie. */
export async function signInPage(page: Page, gh: Pick<TestGithost, 'url'>, username: string, password: string): Promise<void> {
  await page.goto(`${gh.url}/-/sign-in`);
  await page.fill('#username', username);
  await page.fill('#password', password);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/-/sign-in')), page.click('form.stack button[type=submit]')]);
}

/** Submits the form a button is in and waits for the next page. */
export async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
}
