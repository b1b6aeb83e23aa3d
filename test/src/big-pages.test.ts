import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, createRepo, git, gitResult, gitWithInput, makeWorkdir, pushUrl, startTestGithost, textOf, webGet, type TestGithost } from './support/index.js';
import { launchBrowser, withPage, type Browser } from '@githost/test-support/browser';
import { visitPage } from './support/web-session.js';

/**
 * Bounded pages of a big repository (docs/decisions/big-pages.md, docs/decisions/ref-pages.md),
 * through the gateway and in a real browser: a 5,000-entry directory lists 1,000 and says how to
 * see the rest; 3,003 branches are paged and filtered on the server, with and without script; a
 * 2,000-file merge request lists its files and loads one file's diff on demand. The repository is
 * written by git fast-import and pushed with the real git client.
 */
let gh: TestGithost;
let browser: Browser;
let token: string;
let cookie: string;

const WIDE = 5000;
const BRANCHES = 3000;
const CHANGED = 2000;
const pad = (n: number) => String(n).padStart(4, '0');

/** main: `many/` with WIDE files and `diff/` with CHANGED; feature changes every file of `diff/`;
 *  BRANCHES branches `b/NNNN` at main, and `special/needle-42`. */
function bigRepository(): string {
  const out = ['blob', 'mark :1', 'data 4', 'one', '', 'blob', 'mark :2', 'data 4', 'two', ''];
  out.push('commit refs/heads/main', 'mark :10', 'committer A <a@example.com> 1700000000 +0000', 'data 5', 'base', 'M 644 inline README.md', 'data 7', '# Big', '');
  for (let i = 0; i < WIDE; i++) out.push(`M 644 :1 many/f${pad(i)}`);
  for (let i = 0; i < CHANGED; i++) out.push(`M 644 :1 diff/f${pad(i)}`);
  out.push('', 'commit refs/heads/feature', 'mark :11', 'committer A <a@example.com> 1700000100 +0000', 'data 7', 'change', 'from :10');
  for (let i = 0; i < CHANGED; i++) out.push(`M 644 :2 diff/f${pad(i)}`);
  out.push('');
  for (let i = 0; i < BRANCHES; i++) out.push(`reset refs/heads/b/${pad(i)}`, 'from :10', '');
  out.push('reset refs/heads/special/needle-42', 'from :10', '', 'done', '');
  return out.join('\n');
}

// Writing and pushing 3,000 branches and a 7,000-file tree takes minutes on a loaded machine.
beforeAll(async () => {
  gh = await startTestGithost();
  const user = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: 'alice', email: 'alice@example.com', password: 'alice has a long password' } });
  expect(user.status).toBe(201);
  const session = (await api(gh, 'POST', '/api/sessions', { body: { username: 'alice', password: 'alice has a long password' } })).body.secret as string;
  cookie = `githost_session=${encodeURIComponent(session)}`;
  token = (await api(gh, 'POST', '/api/user/tokens', { token: session, body: { name: 'push', scopes: ['read', 'write'] } })).body.token as string;
  await createRepo(gh, token, 'big');
  const work = makeWorkdir();
  await git(work, 'init', '-q', '--bare');
  await gitWithInput(work, bigRepository(), 'fast-import', '--quiet', '--done');
  // main and feature first, then the branches a few hundred a push (many-refs pushes are git-storage's own work).
  const push = async (...refspecs: string[]) => {
    const pushed = await gitResult(work, 'push', '-q', pushUrl(gh, 'alice', token, 'alice', 'big'), ...refspecs);
    if (pushed.code !== 0) throw new Error(`push failed: ${pushed.stderr}`);
  };
  await push('refs/heads/main:refs/heads/main', 'refs/heads/feature:refs/heads/feature', 'refs/heads/special/needle-42:refs/heads/special/needle-42');
  for (let from = 0; from < BRANCHES; from += 500) {
    await push(...Array.from({ length: Math.min(500, BRANCHES - from) }, (_, i) => `refs/heads/b/${pad(from + i)}:refs/heads/b/${pad(from + i)}`));
  }
  const mr = await api(gh, 'POST', '/api/repos/alice/big/merge-requests', { token, body: { title: 'Change every file', source_branch: 'feature', target_branch: 'main' } });
  expect(mr.status).toBe(201);
}, 600_000);

afterAll(async () => {
  await gh?.stop();
});

const count = (html: string, needle: string) => html.split(needle).length - 1;

describe('a 5,000-entry directory', () => {
  it('when its page is read, then the first 1,000 entries are listed and a note says how many there are and to clone for the rest', async () => {
    const page = await webGet(gh, '/alice/big/-/tree/main/many');
    expect(page.status).toBe(200);
    expect(count(page.html, 'href="/alice/big/-/blob/main/many/f')).toBe(1000);
    expect(page.html).toContain('href="/alice/big/-/blob/main/many/f0999"');
    expect(page.html).not.toContain('many/f1000"');
    expect(textOf(page.html)).toContain('This directory has 5,000 entries; only the first 1,000 are shown. To see them all, clone the repository: git clone http://');
  });

  it('when the API lists it, then every entry, as the seed says; with ?limit=1000, the first 1,000 and the count', async () => {
    const res = await api(gh, 'GET', '/api/repos/alice/big/tree/main/many');
    expect([res.status, (res.body.entries as unknown[]).length]).toEqual([200, WIDE]);
    const head = await api(gh, 'GET', '/api/repos/alice/big/tree/main/many?limit=1000');
    expect([head.status, head.body.entries, head.headers.get('x-total-count')]).toEqual([200, (res.body.entries as unknown[]).slice(0, 1000), String(WIDE)]);
  });
});

describe('3,003 branches', () => {
  const names = [...Array.from({ length: BRANCHES }, (_, i) => `b/${pad(i)}`), 'feature', 'main', 'special/needle-42'];

  it('when the API is asked without paging, then every branch; with per_page and page, that page, its count and links', async () => {
    const all = await api(gh, 'GET', '/api/repos/alice/big/branches');
    expect([(all.body.branches as Array<{ name: string }>).map((b) => b.name), all.headers.get('link')]).toEqual([names, null]);
    const paged = await fetch(`${gh.url}/api/repos/alice/big/branches?per_page=100&page=30`);
    const body = (await paged.json()) as { branches: Array<{ name: string }> };
    expect([paged.status, body.branches.map((b) => b.name), paged.headers.get('x-total-count')]).toEqual([200, names.slice(2900, 3000), '3003']);
    expect(paged.headers.get('link')).toBe(
      '</api/repos/alice/big/branches?per_page=100&page=29>; rel="prev", </api/repos/alice/big/branches?per_page=100&page=31>; rel="next", </api/repos/alice/big/branches?per_page=100&page=31>; rel="last", </api/repos/alice/big/branches?per_page=100&page=1>; rel="first"',
    );
    const bad = await fetch(`${gh.url}/api/repos/alice/big/branches?per_page=500`);
    expect([bad.status, await bad.json()]).toEqual([400, { error: 'per_page must be an integer from 1 to 100' }]);
  });

  it('when the branches page is read, then 50 branches a page with links to the next, and the tab counts them all', async () => {
    const first = await webGet(gh, '/alice/big/-/branches');
    expect(count(first.html, 'class="badge">default')).toBe(0);
    expect(count(first.html, '/-/commits/b/')).toBe(50);
    expect(textOf(first.html)).toContain('3,003 branches; 1–50 shown.');
    expect(first.html).toContain('href="/alice/big/-/branches?page=2" rel="next"');
    expect(first.html).toContain(`Branches<span class="counter">3003</span>`);
    const second = await webGet(gh, '/alice/big/-/branches?page=2');
    expect(second.html).toContain('/-/commits/b/0050"');
    expect(second.html).not.toContain('/-/commits/b/0049"');
  });

  it('when the branches page is filtered, then the server lists only the names holding the text', async () => {
    const page = await webGet(gh, '/alice/big/-/branches?q=NEEDLE');
    expect(count(page.html, '/-/commits/')).toBe(1);
    expect(page.html).toContain('href="/alice/big/-/tree/special/needle-42"');
    expect(textOf(page.html)).toContain('1 branch matching “NEEDLE”');
  });

  it('when the ref menu is asked with q, then it lists the matching refs; without, 30 and how to find the rest', async () => {
    const found = await webGet(gh, '/alice/big/-/refs?view=tree&ref=main&q=needle');
    expect(count(found.html, 'href="/alice/big/-/tree/')).toBeGreaterThanOrEqual(1);
    expect(found.html).toContain('href="/alice/big/-/tree/special/needle-42"');
    expect(found.html).not.toContain('href="/alice/big/-/tree/b/0000"');
    const menu = await webGet(gh, '/alice/big/-/refs?view=tree&ref=main');
    expect(textOf(menu.html)).toContain('30 of 3,003 shown: type more of the name, or see every branch');
  });
});

describe('choosing a branch among 3,003', () => {
  const options = (html: string, id: string) => [...(new RegExp(`<select id="${id}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? '').matchAll(/<option value(?:="([^"]*)")?/g)].map((m) => m[1] ?? '');

  it('when the compare page is read, then each select lists 30 branches found by the API and the chosen one, and says how many there are', async () => {
    const page = await webGet(gh, '/alice/big/-/compare?base=main&head=feature', { cookie });
    expect(page.status).toBe(200);
    const first30 = Array.from({ length: 30 }, (_, i) => `b/${pad(i)}`);
    expect(options(page.html, 'compare-base')).toEqual(['main', ...first30]);
    expect(options(page.html, 'compare-head')).toEqual(['feature', ...first30]);
    expect(textOf(page.html)).toContain('30 of 3,003 branches listed: type part of a name and press Compare.');
    // Both are branches (asked of the API by name), so the merge request form is offered.
    expect(page.html).toContain('name="source_branch" value="feature"');
  });

  it('when the compare page is filtered, then the select holds the branches matching the filter', async () => {
    const page = await webGet(gh, '/alice/big/-/compare?base=main&head=&head_q=NEEDLE', { cookie });
    expect(options(page.html, 'compare-head')).toEqual(['', 'special/needle-42']);
    expect(page.html).toContain('name="head_q" type="search" value="NEEDLE"');
  });

  it('when the settings page is read, then the default branch select lists 30 and the default; filtered, the matches', async () => {
    const page = await webGet(gh, '/alice/big/-/settings', { cookie });
    expect(page.status).toBe(200);
    expect(options(page.html, 'repo-default-branch')).toEqual(['main', ...Array.from({ length: 30 }, (_, i) => `b/${pad(i)}`)]);
    expect(page.html).toMatch(/<option value="main" selected/);
    expect(textOf(page.html)).toContain('30 of 3,003 branches listed: filter by part of a name.');
    const filtered = await webGet(gh, '/alice/big/-/settings?q=needle', { cookie });
    expect(options(filtered.html, 'repo-default-branch')).toEqual(['main', 'special/needle-42']);
  });
});

describe('a merge request changing 2,000 files', () => {
  it('when its page is read, then every file is listed with a link to its changes and no file\'s diff is in the page', async () => {
    const page = await webGet(gh, '/alice/big/-/merge-requests/1');
    expect(page.status).toBe(200);
    expect(count(page.html, 'data-load-diff')).toBe(CHANGED);
    expect(count(page.html, '<table class="diff')).toBe(0);
    expect(textOf(page.html)).toContain('2000 files changed');
    expect(page.html).toContain('href="/alice/big/-/merge-requests/1?file=diff%2Ff0007#diff-8"');
  });

  it('without script, when a file\'s link is followed, then that file\'s diff is shown and only it', async () => {
    const page = await webGet(gh, '/alice/big/-/merge-requests/1?file=diff%2Ff0007');
    expect(count(page.html, 'class="diff-scroll"')).toBe(1);
    expect(count(page.html, 'data-load-diff')).toBe(CHANGED - 1);
    expect(textOf(page.html)).toContain('Removed line: one');
    expect(textOf(page.html)).toContain('Added line: two');
  });
});

describe('in a browser (chromium)', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('with script, when one types in the ref switcher, then its list is the server\'s answer for that text', () =>
    withPage(browser, {}, async (page, incidents) => {
      await visitPage(page, gh, '/alice/big/-/tree/main');
      await page.click('details.ref-switcher summary');
      await page.locator('details.ref-switcher .ref-menu-lists a[href="/alice/big/-/tree/b/0000"]').waitFor();
      await page.fill('details.ref-switcher input[name=q]', 'needle');
      await page.locator('details.ref-switcher .ref-menu-lists a[href="/alice/big/-/tree/special/needle-42"]').waitFor();
      expect(await page.locator('details.ref-switcher .ref-menu-lists a[href^="/alice/big/-/tree/b/"]').count()).toBe(0);
      expect(page.url()).toBe(`${gh.url}/alice/big/-/tree/main`);
      expect(incidents.errors).toEqual([]);
    }));

  it('without script, when the switcher\'s filter is submitted, then the refs page lists the matches', () =>
    withPage(browser, { javaScriptEnabled: false }, async (page) => {
      await visitPage(page, gh, '/alice/big/-/tree/main');
      await page.click('details.ref-switcher summary');
      await page.fill('details.ref-switcher input[name=q]', 'needle');
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.press('details.ref-switcher input[name=q]', 'Enter')]);
      expect(new URL(page.url()).pathname).toBe('/alice/big/-/refs');
      await page.click('a[href="/alice/big/-/tree/special/needle-42"]');
      expect(new URL(page.url()).pathname).toBe('/alice/big/-/tree/special/needle-42');
    }));

  it('without script, when the branches page filter is submitted, then it lists the match', () =>
    withPage(browser, { javaScriptEnabled: false }, async (page) => {
      await visitPage(page, gh, '/alice/big/-/branches');
      await page.getByLabel('Filter branches by name').fill('needle');
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form.filter button[type=submit]')]);
      expect(await page.locator('ul.ref-list li').count()).toBe(1);
      expect(await page.locator('ul.ref-list li a').first().textContent()).toBe('special/needle-42');
    }));

  it('without script, when the compare page\'s head filter is submitted, then the match can be chosen and compared', () =>
    withPage(browser, { javaScriptEnabled: false }, async (page) => {
      await visitPage(page, gh, '/alice/big/-/compare');
      await page.fill('#compare-head-q', 'needle');
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form.compare-pickers button[type=submit]')]);
      await page.selectOption('#compare-head', 'special/needle-42');
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form.compare-pickers button[type=submit]')]);
      const url = new URL(page.url());
      expect([url.searchParams.get('base'), url.searchParams.get('head')]).toEqual(['main', 'special/needle-42']);
      expect(await page.locator('#compare-head option[selected]').textContent()).toBe('special/needle-42');
    }));

  it('with script, when a file\'s link is clicked, then its diff loads in place', () =>
    withPage(browser, {}, async (page, incidents) => {
      await visitPage(page, gh, '/alice/big/-/merge-requests/1');
      await page.click('#diff-8 a[data-load-diff]');
      await page.locator('#diff-8 table.diff-unified').waitFor();
      expect(await page.locator('#diff-8 .diff-scroll').getAttribute('aria-label')).toBe('diff/f0007');
      expect(await page.locator('table.diff-unified').count()).toBe(1);
      expect(page.url()).toBe(`${gh.url}/alice/big/-/merge-requests/1`);
      expect(incidents.errors).toEqual([]);
    }));
});
