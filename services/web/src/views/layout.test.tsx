import { describe, expect, it } from '@jest/globals';
import { renderToString } from 'preact-render-to-string';
import { Breadcrumbs, CommitRow, RefSwitcher, TreeTable } from './components.js';
import { renderDocument } from './render.js';

const EVIL = '"><img src=x onerror=alert(1)><script>alert(2)</script>';

describe('templates escape what users and repositories write', () => {
  it('when a page title, a user name and the repository chrome hold markup, then the document holds it as text', () => {
    const html = renderDocument({ title: EVIL, viewer: { id: '1', username: EVIL, email: null, is_admin: false }, csrf: 'c"sr<f', repo: { owner: EVIL, name: EVIL, private: true, tab: 'code' }, children: <p>{EVIL}</p> });
    expect(html.startsWith('<!doctype html><html lang="en">')).toBe(true);
    expect(html).not.toMatch(/<img|<script>alert/);
    expect(html).toContain('value="c&quot;sr&lt;f"');
    expect(html).toContain('<script src="/-/static/site.js" defer></script>');
  });

  it('when file names, ref names and commit messages hold markup, then listings, breadcrumbs and the ref switcher escape them in text and in links', () => {
    const html = renderToString(
      <>
        <TreeTable owner="alice" repo="demo" gitRef={EVIL} entries={[{ name: EVIL, path: `dir/${EVIL}`, type: 'blob', mode: '100644', sha: 'a'.repeat(40), size: 3 }]} parentPath="" />
        <Breadcrumbs owner="alice" repo="demo" gitRef={EVIL} path={`dir/${EVIL}`} />
        <RefSwitcher owner="alice" repo="demo" current={EVIL} path="" refs={{ branches: [{ name: EVIL, sha: 'b'.repeat(40), isDefault: true }], tags: [] }} view="tree" />
        <ul>
          <CommitRow owner="alice" repo="demo" commit={{ sha: 'c'.repeat(40), tree: 'd'.repeat(40), parents: [], author: { name: EVIL, email: 'e@x', date: '2026-01-01T00:00:00+00:00' }, committer: { name: 'x', email: 'e@x', date: '2026-01-01T00:00:00+00:00' }, message: `${EVIL}\n\nbody` }} />
        </ul>
      </>,
    );
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain('href="/alice/demo/-/blob/%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E%3Cscript%3Ealert(2)%3C/script%3E/dir/');
  });
});
