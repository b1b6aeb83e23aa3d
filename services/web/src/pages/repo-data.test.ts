import { describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import type { GatewayApi } from '../clients/api.js';
import { branchChoices, branchExists, countsOf, type Settled } from './repo-data.js';

const ok = <T>(value: T): Settled<T> => ({ ok: true, value });
const failed: Settled<never> = { ok: false, error: new AppError('unavailable', 'down') };
const branches = (n: number) => n;
const tags = (n: number) => n;

describe("the tabs' counts", () => {
  it('when every list was read, then each tab counts its own', () => {
    expect(countsOf(ok(branches(2)), ok(tags(1)), ok([{}, {}, {}]))).toEqual({ branches: 2, tags: 1, mergeRequests: '3' });
  });

  it('when the open list is full, then it reads 50+, since the list answers at most 50', () => {
    expect(countsOf(ok(branches(1)), ok(tags(0)), ok(Array.from({ length: 50 }, () => ({}))))?.mergeRequests).toBe('50+');
    expect(countsOf(ok(branches(1)), ok(tags(0)), ok(Array.from({ length: 49 }, () => ({}))))?.mergeRequests).toBe('49');
  });

  it('when the open list could not be read, then only its count is missing', () => {
    expect(countsOf(ok(branches(2)), ok(tags(1)), failed)).toEqual({ branches: 2, tags: 1 });
  });

  it('when the branches or the tags could not be read, then no tab shows a count', () => {
    expect(countsOf(failed, ok(tags(1)), ok([]))).toBeUndefined();
    expect(countsOf(ok(branches(2)), failed, ok([]))).toBeUndefined();
  });
});

/** The API's paged, filtered branch list over `names` (docs/decisions/ref-pages.md), and what was asked. */
function branchApi(names: string[]) {
  const asked: string[] = [];
  const api = {
    async getCounted(path: string) {
      asked.push(path);
      const url = new URL(path, 'http://api');
      const q = (url.searchParams.get('q') ?? '').toLowerCase();
      const perPage = Number(url.searchParams.get('per_page'));
      const pageNo = Number(url.searchParams.get('page'));
      const matching = names.filter((n) => n.toLowerCase().includes(q));
      return { value: { branches: matching.slice((pageNo - 1) * perPage, pageNo * perPage).map((name) => ({ name, sha: 'a'.repeat(40), isDefault: false })), default_branch: 'main' }, total: matching.length };
    },
  };
  return { api: api as unknown as GatewayApi, asked };
}

describe('choosing a branch', () => {
  const many = Array.from({ length: 3000 }, (_, i) => `b/${String(i).padStart(4, '0')}`);

  it('when a select is filled, then the API is asked for one page of 30 holding the filter, and the chosen one stays first', async () => {
    const { api, asked } = branchApi(['main', ...many]);
    expect(await branchChoices(api, 'alice', 'big', '', 'b/2999')).toEqual({ names: ['b/2999', 'main', ...many.slice(0, 29)], listed: 30, total: 3001 });
    const holding = many.filter((n) => n.includes('004'));
    expect(await branchChoices(api, 'alice', 'big', '004', 'main')).toEqual({ names: ['main', ...holding], listed: holding.length, total: holding.length });
    expect(await branchChoices(api, 'alice', 'big', '', '')).toMatchObject({ listed: 30, total: 3001 });
    expect(asked).toEqual(['/api/repos/alice/big/branches?per_page=30&page=1', '/api/repos/alice/big/branches?q=004&per_page=30&page=1', '/api/repos/alice/big/branches?per_page=30&page=1']);
  });

  it('when a name is looked up, then the filter by that name is read until the name is found or the matches end', async () => {
    const { api, asked } = branchApi(['main', ...many, 'x/b/0001']);
    expect(await branchExists(api, 'alice', 'big', 'b/0001')).toBe(true);
    expect(await branchExists(api, 'alice', 'big', 'v1.0')).toBe(false);
    expect(await branchExists(api, 'alice', 'big', '')).toBe(false);
    expect(asked).toEqual(['/api/repos/alice/big/branches?q=b%2F0001&per_page=100&page=1', '/api/repos/alice/big/branches?q=v1.0&per_page=100&page=1']);
    // A name that many others hold, sorted after them: the next pages.
    const crowded = branchApi([...Array.from({ length: 150 }, (_, i) => `a${String(i).padStart(3, '0')}-fix`), 'fix']);
    expect(await branchExists(crowded.api, 'alice', 'big', 'fix')).toBe(true);
    expect(crowded.asked).toHaveLength(2);
  });
});
