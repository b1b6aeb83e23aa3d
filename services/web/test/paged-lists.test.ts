import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { repositoryJson, startWebBefore } from './support/web.js';

/** A list longer than one page of the API reads on, page by page (services/web/README.md#site-map). */
let running: Awaited<ReturnType<typeof startWebBefore>> | undefined;
let base: string;
const asked: string[] = [];

beforeAll(async () => {
  const app = express();
  // 130 repositories: a full page of 100, then 30.
  app.get('/api/users/:user/repos', (req, res) => {
    asked.push(req.originalUrl);
    const perPage = Number(req.query.per_page);
    const pageNo = Number(req.query.page ?? 1);
    const all = Array.from({ length: 130 }, (_, i) => `repo-${String(i + 1).padStart(3, '0')}`);
    const names = all.slice((pageNo - 1) * perPage, pageNo * perPage);
    res.json(names.map((name) => repositoryJson(req.params.user, name)));
  });
  running = await startWebBefore(app);
  base = running.base;
});

afterAll(() => running?.close());

const namesOn = (html: string) => [...html.matchAll(/>bob\/(repo-\d+)</g)].map((m) => m[1]);

describe('paged lists', () => {
  it('when a user has more repositories than a page holds, then the page links to the next, which shows the rest and links back', async () => {
    const first = await (await fetch(`${base}/bob`)).text();
    expect([namesOn(first).length, namesOn(first)[0], namesOn(first)[99]]).toEqual([100, 'repo-001', 'repo-100']);
    expect(first).toContain('<a href="/bob?page=2" rel="next">Next page</a>');
    expect(first).not.toContain('rel="prev"');
    const second = await (await fetch(`${base}/bob?page=2`)).text();
    expect([namesOn(second).length, namesOn(second)[0], namesOn(second)[29]]).toEqual([30, 'repo-101', 'repo-130']);
    expect(second).toContain('<a href="/bob?page=1" rel="prev">Previous page</a>');
    expect(second).not.toContain('rel="next"');
    expect(asked).toEqual(['/api/users/bob/repos?per_page=100&page=1', '/api/users/bob/repos?per_page=100&page=2']);
  });

  it('when the page number is not one, then the first page is shown', async () => {
    asked.length = 0;
    await fetch(`${base}/bob?page=-3`);
    await fetch(`${base}/bob?page=x`);
    expect(asked).toEqual(['/api/users/bob/repos?per_page=100&page=1', '/api/users/bob/repos?per_page=100&page=1']);
  });
});
