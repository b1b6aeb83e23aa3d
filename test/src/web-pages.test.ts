import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  api, commitFiles, createRepo, createUser, git, makeWorkdir, pushUrl, startTestGithost, textOf, webGet, webPost,
  type TestGithost, type TestUser,
} from './support/index.js';

/** The web's reading pages through the gateway (services/web/README.md), anonymous on public
 *  repositories; the repository is pushed with the real git client. */
let gh: TestGithost;
let alice: TestUser;
let work: string;
let head: string;

const BROWSE_LIMIT = 64 * 1024;
const BIG = 'x'.repeat(BROWSE_LIMIT + 10) + '\n';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  // A small browse limit, so a file over it is cheap to make.
  gh = await startTestGithost({ env: { BROWSE_MAX_BLOB_BYTES: String(BROWSE_LIMIT) } });
  alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'demo', { description: 'A <b>demo</b>' });
  await createRepo(gh, alice.token, 'secret', { private: true });
  await createRepo(gh, alice.token, 'empty');
  work = makeWorkdir();
  await commitFiles(
    work,
    {
      'README.md': '# Demo\n\nSee [the guide](docs/guide.md) and ![logo](img/logo.png).\n\n<script>alert(1)</script><img src=x onerror=alert(2)>\n',
      'docs/guide.md': 'guide\n',
      'img/logo.png': PNG,
      'src/main.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
      'data/big.txt': BIG,
      'data/blob.bin': Buffer.from([0, 1, 2, 3, 255]),
    },
    'First commit',
  );
  await commitFiles(work, { 'src/main.ts': 'export function add(a: number, b: number): number {\n  return a + b + 0;\n}\n', 'notes.txt': 'one\ntwo\n' }, 'Second <b>commit</b>\n\nWith a body.');
  head = (await git(work, 'rev-parse', 'HEAD')).trim();
  await git(work, 'branch', 'feature/x');
  await git(work, 'tag', 'v1.0');
  for (const repo of ['demo', 'secret']) {
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', repo), 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*');
  }
  await createRepo(gh, alice.token, 'long');
  const long = makeWorkdir();
  await commitFiles(long, { 'n.txt': '0\n' }, 'Commit 0');
  for (let i = 1; i < LONG_COMMITS; i++) await git(long, 'commit', '-q', '--allow-empty', '-m', `Commit ${i}`);
  await git(long, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'long'), 'main');
}, 180_000);

const LONG_COMMITS = 35;
const PASSWORD = 'alice has a long password';

/** A web session of alice's, as the sign-in form makes one (her password set by the admin). */
async function aliceCookie(): Promise<string> {
  await api(gh, 'PUT', '/api/admin/users/alice/password', { token: gh.adminToken, body: { password: PASSWORD } });
  const session = await api(gh, 'POST', '/api/sessions', { body: { username: 'alice', password: PASSWORD } });
  return `githost_session=${encodeURIComponent(session.body.secret as string)}`;
}

afterAll(async () => {
  await gh?.stop();
});

describe('the site through the gateway', () => {
  it('when the home page is asked for anonymously, then it is HTML with the security headers and a sign-in link', async () => {
    const res = await webGet(gh, '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.html).toContain('href="/-/sign-in"');
  });

  it('when the stylesheet and the script are asked for, then the web serves them', async () => {
    const css = await fetch(`${gh.url}/-/static/site.css`);
    const js = await fetch(`${gh.url}/-/static/site.js`);
    expect([css.status, css.headers.get('content-type'), js.status, js.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8', 200, 'text/javascript; charset=utf-8']);
    expect(await css.text()).toContain('prefers-color-scheme: dark');
  });

  it('when an unknown API path or the metrics path is asked for, then the JSON 404 stays', async () => {
    for (const path of ['/api/nothing', '/metrics', '/alice/demo.git/objects/info/packs']) {
      const res = await fetch(gh.url + path);
      expect([path, res.status, await res.json()]).toEqual([path, 404, { error: 'Not found' }]);
    }
  });
});

describe('repository code', () => {
  it('when the repository page is read, then the tree, the README rendered and sanitised, the clone URL and the archives show', async () => {
    const res = await webGet(gh, '/alice/demo');
    expect(res.status).toBe(200);
    expect(res.html).toContain('<h1>Demo</h1>');
    // Relative links resolve against the ref: the guide's blob page, the logo's raw bytes.
    expect(res.html).toContain('href="/alice/demo/-/blob/main/docs/guide.md"');
    expect(res.html).toContain('src="/alice/demo/-/raw/main/img/logo.png"');
    expect(res.html).not.toContain('<script>alert');
    expect(res.html).not.toContain('onerror');
    expect(res.html).toContain('A &lt;b>demo&lt;/b>');
    expect(res.html).toMatch(/value="http:\/\/localhost:\d+\/alice\/demo.git"/);
    expect(res.html).toContain('href="/alice/demo/-/archive/main.zip"');
    expect(res.html).toContain('href="/alice/demo/-/tree/main/src"');
  });

  it('when a directory at a slashed branch is read, then breadcrumbs and the ref switcher name the branch', async () => {
    const res = await webGet(gh, '/alice/demo/-/tree/feature/x/src');
    expect(res.status).toBe(200);
    expect(res.html).toContain('href="/alice/demo/-/blob/feature/x/src/main.ts"');
    expect(textOf(res.html)).toContain('ref: feature/x');
    // The switcher's branches and tags are the refs page's (loaded into it by site.js).
    expect(res.html).toContain('href="/alice/demo/-/refs?view=tree&amp;ref=feature%2Fx&amp;path=src"');
    const refs = await webGet(gh, '/alice/demo/-/refs?view=tree&ref=feature%2Fx&path=src');
    expect(refs.status).toBe(200);
    expect(refs.html).toContain('href="/alice/demo/-/tree/v1.0/src"');
    expect(refs.html).toContain('<a href="/alice/demo/-/tree/feature/x/src" aria-current="true">feature/x</a>');
  });

  it('when a file is read, then it is highlighted on the server with numbered, linkable lines and raw links', async () => {
    const res = await webGet(gh, '/alice/demo/-/blob/main/src/main.ts');
    expect(res.status).toBe(200);
    expect(res.html).toContain('<tr id="L1">');
    expect(res.html).toContain('<a href="#L3">3</a>');
    expect(res.html).toContain('<span class="hljs-keyword">export</span>');
    expect(res.html).toContain('href="/alice/demo/-/raw/main/src/main.ts"');
    expect(res.html).toContain('href="/alice/demo/-/raw/main/src/main.ts?download=1"');
  });

  it('when an image is read, then it is shown through its raw URL, which answers its bytes under a sandbox policy', async () => {
    const page = await webGet(gh, '/alice/demo/-/blob/main/img/logo.png');
    expect(page.html).toContain('<img src="/alice/demo/-/raw/main/img/logo.png" alt="logo.png"/>');
    const raw = await fetch(`${gh.url}/alice/demo/-/raw/main/img/logo.png`);
    expect([raw.status, raw.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(raw.headers.get('content-security-policy')).toContain('sandbox');
    expect(Buffer.from(await raw.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('when a text file is downloaded, then it comes as an attachment with its bytes', async () => {
    const raw = await fetch(`${gh.url}/alice/demo/-/raw/feature/x/notes.txt?download=1`);
    expect([raw.status, raw.headers.get('content-disposition'), await raw.text()]).toEqual([200, 'attachment; filename="notes.txt"', 'one\ntwo\n']);
  });

  it('when an archive link is followed, then the archive of the ref streams', async () => {
    const res = await fetch(`${gh.url}/alice/demo/-/archive/v1.0.tar.gz`);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/gzip']);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
  });

  it('when a file is over the browse limit, then the page says so with a raw link, and the raw link has its bytes', async () => {
    const res = await webGet(gh, '/alice/demo/-/blob/feature/x/data/big.txt');
    expect(res.status).toBe(200);
    expect(textOf(res.html)).toContain('This file is too large to show here.');
    expect(res.html).toContain('href="/alice/demo/-/raw/feature/x/data/big.txt"');
    expect(await (await fetch(`${gh.url}/alice/demo/-/raw/feature/x/data/big.txt`)).text()).toBe(BIG);
  });

  it('when a binary file is read, then it is named as binary with raw and download links', async () => {
    const res = await webGet(gh, '/alice/demo/-/blob/main/data/blob.bin');
    expect(textOf(res.html)).toContain('This is a binary file (5 B).');
    expect(res.html).toContain('href="/alice/demo/-/raw/main/data/blob.bin?download=1"');
  });

  it('when a directory is asked for as a file or a file as a directory, then the page it is goes instead', async () => {
    expect((await webGet(gh, '/alice/demo/-/blob/main/src')).headers.get('location')).toBe('/alice/demo/-/tree/main/src');
    expect((await webGet(gh, '/alice/demo/-/tree/main/notes.txt')).headers.get('location')).toBe('/alice/demo/-/blob/main/notes.txt');
  });

  it('when an empty repository is read, then it says so with its clone URL and the three commands that push to it', async () => {
    const res = await webGet(gh, '/alice/empty');
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    expect(text).toContain('This repository is empty');
    const url = `http://localhost:${new URL(gh.url).port}/alice/empty.git`;
    expect(res.html).toContain(`value="${url}"`);
    expect(res.html).toContain(`git remote add origin ${url}\ngit branch -M main\ngit push -u origin main`);
  });

  it('when the repository page is read, then its description, latest commit, counts in the tabs and marked folders and files show', async () => {
    const res = await webGet(gh, '/alice/demo');
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    expect(text).toContain('A <b>demo</b>');
    // The latest commit above the files: author, subject, time, short sha, each as the API has them.
    const latest = /<div class="latest-commit"[^>]*>([\s\S]*?)<\/div>/.exec(res.html)?.[1] ?? '';
    expect(textOf(latest)).toContain('E2E Author Second <b>commit</b>');
    expect(latest).toContain(`href="/alice/demo/-/commit/${head}"`);
    expect(latest).toContain(`<code>${head.slice(0, 8)}</code>`);
    expect(latest).toMatch(/<time datetime="[^"]+">/);
    // Counts in their tabs: main and feature/x, v1.0, no open merge request.
    const tabs = /<nav aria-label="Repository"[^>]*>([\s\S]*?)<\/nav>/.exec(res.html)?.[1] ?? '';
    expect(textOf(tabs)).toMatch(/Branches 2 Tags 1 Merge requests 0/);
    // Folders and files differ by a mark with a text alternative, not by a trailing slash.
    expect(res.html).toMatch(/<svg class="icon icon-tree" role="img" aria-label="Folder"[^>]*>[\s\S]*?<\/svg><a href="\/alice\/demo\/-\/tree\/main\/docs">docs<\/a>/);
    expect(res.html).toMatch(/<svg class="icon icon-blob" role="img" aria-label="File"[^>]*>[\s\S]*?<\/svg><a href="\/alice\/demo\/-\/blob\/main\/notes.txt">notes.txt<\/a>/);
    expect(res.html).not.toContain('docs/</a>');
  });

  it('when a directory below the top is read, then the latest commit of its ref shows above it', async () => {
    const res = await webGet(gh, '/alice/demo/-/tree/feature/x/src');
    expect(res.status).toBe(200);
    expect(textOf(/<div class="latest-commit"[^>]*>([\s\S]*?)<\/div>/.exec(res.html)?.[1] ?? '')).toContain('Second <b>commit</b>');
  });

  it('when a repository has refs but not its default branch, then its page says the default branch is missing and links the branches, not a 404', async () => {
    // git refuses to delete the branch HEAD names, so a push of tags alone is how a repository
    // comes to have refs without its default branch.
    await createRepo(gh, alice.token, 'tagged');
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'tagged'), 'refs/tags/v1.0:refs/tags/v1.0');
    const res = await webGet(gh, '/alice/tagged');
    expect(res.status).toBe(200);
    expect(textOf(res.html)).toContain('The default branch main does not exist: it has no branch yet. See the branches');
    expect(res.html).toContain('<a href="/alice/tagged/-/branches">See the branches</a>');
    expect(textOf(/<nav aria-label="Repository"[^>]*>([\s\S]*?)<\/nav>/.exec(res.html)?.[1] ?? '')).toMatch(/Branches 0 Tags 1/);
  });
});

describe('the tabs on every repository page', () => {
  it('when any page of a repository is read, then its tab bar counts the branches, tags and open merge requests', async () => {
    // A repository of its own with one open merge request, so every count is one the page read.
    await createRepo(gh, alice.token, 'counted');
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'counted'), 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*');
    const opened = await api(gh, 'POST', '/api/repos/alice/counted/merge-requests', { token: alice.token, body: { title: 'Feature', source_branch: 'feature/x', target_branch: 'main' } });
    expect(opened.status).toBe(201);
    const cookie = await aliceCookie();
    const pages = [
      '/alice/counted',
      '/alice/counted/-/blob/main/notes.txt',
      '/alice/counted/-/commits/main',
      `/alice/counted/-/commit/${head}`,
      '/alice/counted/-/branches',
      '/alice/counted/-/tags',
      '/alice/counted/-/refs',
      '/alice/counted/-/merge-requests',
      '/alice/counted/-/merge-requests?state=closed',
      `/alice/counted/-/merge-requests/${opened.body.number as number}`,
      `/alice/counted/-/merge-requests/${opened.body.number as number}/edit`,
      '/alice/counted/-/compare',
      '/alice/counted/-/settings',
      '/alice/counted/-/settings/collaborators',
      '/alice/counted/-/settings/branches',
      '/alice/counted/-/settings/webhooks',
    ];
    const tabs = await Promise.all(
      pages.map(async (path) => {
        const res = await webGet(gh, path, { cookie });
        return { path, status: res.status, tabs: textOf(/<nav aria-label="Repository"[^>]*>([\s\S]*?)<\/nav>/.exec(res.html)?.[1] ?? '') };
      }),
    );
    expect(tabs).toEqual(pages.map((path) => ({ path, status: 200, tabs: expect.stringMatching(/Branches 2 Tags 1 Merge requests 1/) })));
  });
});

describe('history', () => {
  it('when the commits of a ref are read, then they are listed newest first, each linking to its page', async () => {
    const res = await webGet(gh, '/alice/demo/-/commits/main');
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    expect(text.indexOf('Second <b>commit</b>')).toBeLessThan(text.indexOf('First commit'));
    expect(res.html).toContain(`href="/alice/demo/-/commit/${head}"`);
    expect(res.html).not.toContain('<b>commit</b>');
  });

  it('when history is longer than a page, then pages follow one another by the next commit, and every commit is listed once', async () => {
    const first = await webGet(gh, '/alice/long/-/commits/main');
    const next = /href="(\/alice\/long\/-\/commits\/main\?after=[0-9a-f]{40})" rel="next"/.exec(first.html)?.[1];
    expect(next).toBeDefined();
    const second = await webGet(gh, next!);
    const subjects = (html: string) => [...html.matchAll(/class="subject">Commit (\d+)</g)].map((m) => Number(m[1]));
    expect(subjects(first.html)).toEqual(Array.from({ length: 30 }, (_, i) => LONG_COMMITS - 1 - i));
    expect(subjects(second.html)).toEqual([4, 3, 2, 1, 0]);
    expect(second.html).not.toContain('rel="next"');
    expect(second.html).toContain('href="/alice/long/-/commits/main">Newest</a>');
  });

  it('when a commit is read, then its message, author, parent and diff show', async () => {
    const res = await webGet(gh, `/alice/demo/-/commit/${head}`);
    expect(res.status).toBe(200);
    const text = textOf(res.html);
    expect(text).toContain('With a body.');
    expect(text).toContain('E2E Author');
    expect(text).toContain('return a + b + 0;');
    expect(res.html).toContain('data-view="unified"');
    expect((await webGet(gh, `/alice/demo/-/commit/${head}?view=split`)).html).toContain('data-view="split"');
  });

  it('when branches and tags are listed, then the default branch is marked', async () => {
    const branches = await webGet(gh, '/alice/demo/-/branches');
    expect(textOf(branches.html)).toMatch(/main default/);
    expect(branches.html).toContain('href="/alice/demo/-/tree/feature/x"');
    const tags = await webGet(gh, '/alice/demo/-/tags');
    expect(tags.html).toContain('href="/alice/demo/-/tree/v1.0"');
  });
});

/** A repository of its own (its branches move in the case) with main and topic, topic one commit
 *  ahead ("Add two"); the work tree and the push URL to move them with. */
async function withTopic(name: string): Promise<{ own: string; url: string }> {
  await createRepo(gh, alice.token, name);
  const own = makeWorkdir();
  await commitFiles(own, { 'a.txt': 'one\n' }, 'Base');
  await git(own, 'checkout', '-q', '-b', 'topic');
  await commitFiles(own, { 'a.txt': 'one\ntwo\n' }, 'Add two');
  const url = pushUrl(gh, 'alice', alice.token, 'alice', name);
  await git(own, 'push', '-q', url, 'main', 'topic');
  return { own, url };
}

describe('the compare page', () => {
  it('when it is read twice and the head branch then moves, then the second view is the first with a form that still posts, and the third shows the new commit', async () => {
    // The page is kept between views while the compare's ETag holds (services/web/README.md#what-a-page-costs).
    const { own, url } = await withTopic('compared');
    const cookie = await aliceCookie();
    const path = '/alice/compared/-/compare?base=main&head=topic';
    const first = await webGet(gh, path, { cookie });
    const second = await webGet(gh, path, { cookie });
    expect(first.status).toBe(200);
    expect(textOf(first.html)).toContain('1 commit of topic not in main');
    expect(second.html).toBe(first.html);
    await commitFiles(own, { 'a.txt': 'one\ntwo\nthree\n' }, 'Add three');
    await git(own, 'push', '-q', url, 'topic');
    const moved = await webGet(gh, path, { cookie });
    expect(textOf(moved.html)).toContain('2 commits of topic not in main');
    expect(moved.html).toContain('Add three');
    const csrf = /name="csrf" value="([^"]+)"/.exec(second.html)?.[1] ?? '';
    const created = await webPost(gh, '/alice/compared/-/merge-requests', { csrf, title: 'Topic', source_branch: 'topic', target_branch: 'main' }, { cookie });
    expect([created.status, created.headers.get('location')]).toEqual([303, '/alice/compared/-/merge-requests/1?done=created']);
  });
});

describe('the merge request page', () => {
  it('when it is read twice, then the second view is the first; a comment, a push to the source and the merge each show on the next view', async () => {
    // The page is kept between views while the API answers its calls as before
    // (services/web/README.md#what-a-page-costs); its commits follow from the detail's two heads.
    const { own, url } = await withTopic('reviewed');
    const opened = await api(gh, 'POST', '/api/repos/alice/reviewed/merge-requests', { token: alice.token, body: { title: 'Topic', source_branch: 'topic', target_branch: 'main' } });
    const cookie = await aliceCookie();
    const path = `/alice/reviewed/-/merge-requests/${opened.body.number as number}`;
    const first = await webGet(gh, path, { cookie });
    const second = await webGet(gh, path, { cookie });
    expect(first.status).toBe(200);
    expect(textOf(first.html)).toContain('Add two');
    expect(second.html).toBe(first.html);
    await api(gh, 'POST', `/api/repos/alice/reviewed/merge-requests/${opened.body.number as number}/comments`, { token: alice.token, body: { body: 'Looks right to me' } });
    expect(textOf((await webGet(gh, path, { cookie })).html)).toContain('Looks right to me');
    await commitFiles(own, { 'a.txt': 'one\ntwo\nthree\n' }, 'Add three');
    await git(own, 'push', '-q', url, 'topic');
    const pushed = await webGet(gh, path, { cookie });
    expect(textOf(pushed.html)).toContain('Add three');
    expect(textOf((await webGet(gh, path, { cookie })).html)).toContain('Add three');
    const merged = await api(gh, 'POST', `/api/repos/alice/reviewed/merge-requests/${opened.body.number as number}/merge`, { token: alice.token });
    expect(merged.status).toBe(200);
    const after = await webGet(gh, path, { cookie });
    expect(textOf(after.html)).toContain('Merged as');
    expect((await webGet(gh, path, { cookie })).html).toBe(after.html);
  });
});

describe('errors as pages', () => {
  it('when a private repository is read anonymously, then every page answers exactly as for a missing one', async () => {
    for (const rest of ['', '/-/tree/main', '/-/blob/main/README.md', '/-/raw/main/README.md', '/-/commits/main', `/-/commit/${head}`, '/-/branches', '/-/archive/main.zip']) {
      const hidden = await webGet(gh, `/alice/secret${rest}`);
      const missing = await webGet(gh, `/alice/nothing${rest}`);
      expect([rest, hidden.status, hidden.html]).toEqual([rest, 404, missing.html]);
    }
    expect(textOf((await webGet(gh, '/alice/secret')).html)).toContain('Page not found');
  });

  it('when a form is posted without its anti-CSRF token, then it is refused and changes nothing', async () => {
    const res = await webPost(gh, '/-/new', { name: 'sneaky' });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect((await webGet(gh, '/alice/sneaky')).status).toBe(404);
  });

  it('when a signed-in page is asked for anonymously, then the sign-in page is next', async () => {
    const res = await webGet(gh, '/-/settings/tokens');
    expect([res.status, res.headers.get('location')]).toEqual([303, '/-/sign-in?next=%2F-%2Fsettings%2Ftokens']);
  });

});
