import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  commitFiles, createRepo, createUser, git, makeWorkdir, pushUrl, startTestGithost, textOf, webGet, webPost,
  type TestGithost, type TestUser,
} from './support/index.js';

/** The web's reading pages through the gateway (README "The web"), anonymous on public
 *  repositories; the repository is pushed with the real git client. */
let gh: TestGithost;
let alice: TestUser;
let work: string;
let head: string;

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  gh = await startTestGithost();
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
}, 120_000);

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
    expect(res.html).toContain('href="/alice/demo/-/tree/v1.0/src"');
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

  it('when an empty repository is read, then it says so with push instructions', async () => {
    const res = await webGet(gh, '/alice/empty');
    expect(res.status).toBe(200);
    expect(textOf(res.html)).toContain('This repository is empty');
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
