import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { repositoryJson, startWebBefore } from './support/web.js';

/**
 * The compare page when the API refuses a comparison as too big (docs/decisions/compare.md#budget):
 * the page is still the compare page, with its pickers, and says why, with the API's 400.
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
  running = await startWebBefore(app);
});

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
});
