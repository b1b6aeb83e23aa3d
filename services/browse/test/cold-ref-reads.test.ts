import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { seedRepository, startHarness, type Harness } from './support/harness.js';

// docs/decisions/ref-pages.md#cold-reads-together: the reads that miss a repository's ref snapshot
// together share one load of it. Each load copies, sorts and sizes the whole list synchronously;
// at 110,000 refs the 60-100 pages asked right after a restart, each loading its own once the
// first ListRefs answered, held the event loop 5-18 s (refs watches dropped, connections reset).
const REPO = 'browse-cold-herd';
const API = '/api/repos/alice/herd';
const herd = { id: REPO, name: 'herd', default_branch: 'main' };
const BRANCHES = 3_000;
const CONCURRENT = 40;

let h: Harness;
let source: string;

/** One commit and BRANCHES branches at it (main among them), written by git fast-import. */
function manyBranches(): Buffer {
  const lines = ['commit refs/heads/main', 'mark :1', 'committer A <a@example.com> 1700000000 +0000', 'data 2', 'c', 'M 644 inline f', 'data 2', 'x', ''];
  for (let i = 0; i < BRANCHES - 1; i++) lines.push(`reset refs/heads/b${String(i).padStart(5, '0')}`, 'from :1', '');
  lines.push('done');
  return Buffer.from(lines.join('\n') + '\n');
}

/** The counter `githost_browse_ref_lookups_total{result}` as browse's /metrics shows it. */
async function lookups(result: 'hit' | 'miss' | 'unwatched'): Promise<number> {
  const line = (await h.metrics()).split('\n').find((l) => l.startsWith('githost_browse_ref_lookups_total{') && l.includes(`result="${result}"`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

beforeAll(async () => {
  h = await startHarness();
  source = await seedRepository(h, REPO, manyBranches());
}, 60_000);
afterAll(async () => {
  await h.stop();
  await rm(source, { recursive: true, force: true });
});

describe('cold ref reads of one repository at once', () => {
  it('when many pages of branches are asked for before its refs were ever read, then one snapshot load answers them all', async () => {
    const missesBefore = await lookups('miss');
    const pages = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => h.get(`${API}/branches?per_page=50&page=${i + 1}`, { repo: herd })));
    expect(pages.map((p) => p.status)).toEqual(pages.map(() => 200));
    expect(new Set(pages.map((p) => p.headers['x-total-count']))).toEqual(new Set([String(BRANCHES)]));
    const names = pages.flatMap((p) => (p.json() as { branches: { name: string }[] }).branches.map((b) => b.name));
    expect(names.length).toBe(Math.min(BRANCHES, CONCURRENT * 50));
    expect(new Set(names).size).toBe(names.length);
    // One load (one copy and sort of the list) for all of them; before, one per request that missed.
    expect((await lookups('miss')) - missesBefore).toBe(1);
  });
});
