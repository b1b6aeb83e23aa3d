import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { repositoryJson, startWebBefore } from './support/web.js';

/**
 * The compare page at its bounds: when the API refuses a comparison as too big
 * (docs/decisions/compare.md#budget) the page is still the compare page, with its pickers, and
 * says why, with the API's 400; a diff over the page's budget lists its files and loads each
 * file's changes on demand (docs/decisions/big-pages.md).
 */
const TOO_BIG = 'Comparison too big: more than 1,000,000 commits on one side; compare commits closer together, or run git log on a clone';
let running: Awaited<ReturnType<typeof startWebBefore>> | undefined;
const compared: string[] = [];

beforeAll(async () => {
  const app = express();
  app.get('/api/repos/alice/huge', (_req, res) => void res.json(repositoryJson('alice', 'huge')));
  app.get('/api/repos/alice/huge/branches', (_req, res) => void res.set('X-Total-Count', '1').json({ branches: [{ name: 'main', sha: 'a'.repeat(40), isDefault: true }], default_branch: 'main' }));
  app.get('/api/repos/alice/huge/tags', (_req, res) => void res.set('X-Total-Count', '1').json({ tags: [{ name: 'v0.1', sha: 'b'.repeat(40) }] }));
  app.get('/api/repos/alice/huge/merge-requests', (_req, res) => void res.json([]));
  app.get('/api/repos/alice/huge/compare/:basehead', (req, res) => {
    compared.push(req.params.basehead);
    res.status(400).json({ error: TOO_BIG });
  });
  // 150 changed files: over the page's diff budget (DIFF_PAGE_BUDGET, 100 files).
  app.get('/api/repos/alice/wide', (_req, res) => void res.json(repositoryJson('alice', 'wide')));
  app.get('/api/repos/alice/wide/branches', (_req, res) => void res.set('X-Total-Count', '2').json({ branches: [{ name: 'main', sha: 'a'.repeat(40), isDefault: true }, { name: 'wide', sha: 'c'.repeat(40), isDefault: false }], default_branch: 'main' }));
  app.get('/api/repos/alice/wide/tags', (_req, res) => void res.set('X-Total-Count', '0').json({ tags: [] }));
  app.get('/api/repos/alice/wide/merge-requests', (_req, res) => void res.json([]));
  app.get('/api/repos/alice/wide/compare/:basehead', (_req, res) => void res.json(wideComparison()));
  running = await startWebBefore(app);
});

function wideComparison() {
  const commit = { sha: 'c'.repeat(40), message: 'Touch 150 files', author: { name: 'alice', email: 'a@example.com', date: '2026-11-30T00:00:00Z' }, committer: { name: 'alice', email: 'a@example.com', date: '2026-11-30T00:00:00Z' }, parents: ['a'.repeat(40)] };
  const diff = Array.from({ length: 150 }, (_, i) => ({
    path: `files/f${i}.txt`, old_path: null, status: 'modified', old_mode: '100644', new_mode: '100644', old_sha: 'd'.repeat(40), new_sha: 'e'.repeat(40),
    additions: 1, deletions: 1, binary: false, patch: `@@ -1 +1 @@\n-old line ${i}\n+new line ${i}\n`,
  }));
  return { merge_base: 'a'.repeat(40), status: 'ahead', ahead_by: 1, behind_by: 0, commits: [commit], diff, diff_truncated: false };
}

afterAll(() => running?.close());

describe('compare page', () => {
  it('when the API answers that the comparison is too big, then the page answers 400 with its pickers and the reason, and no commits or diff', async () => {
    const res = await fetch(`${running!.base}/alice/huge/-/compare?base=v0.1&head=main`);
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(compared).toEqual(['v0.1...main']);
    expect(html).toContain('<h1 class="page-title">Compare changes</h1>');
    expect(html).toContain('form method="get" action="/alice/huge/-/compare" class="compare-pickers"');
    expect(html).toContain(TOO_BIG);
    expect(html).not.toContain('<h2>Commits</h2>');
  });

  it('when the diff is over the page budget, then it lists every file with a link to its changes, shows only the file asked for, and the links keep base and head', async () => {
    const res = await fetch(`${running!.base}/alice/wide/-/compare?base=main&head=wide`);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain('This diff is large (150 files)');
    expect(html.match(/ data-load-diff /g)).toHaveLength(150);
    expect(html).toContain('href="/alice/wide/-/compare?base=main&amp;head=wide&amp;file=files%2Ff7.txt#');
    expect(html).not.toContain('new line 7');
    const one = await (await fetch(`${running!.base}/alice/wide/-/compare?base=main&head=wide&file=files%2Ff7.txt`)).text();
    expect(one).toContain('new line 7');
    expect(one).not.toContain('new line 8');
    expect(one.match(/ data-load-diff /g)).toHaveLength(149);
  });
});
