import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API, startHarness, type Harness } from './support/harness.js';

let h: Harness;
let before: string[];
const probe = path.join(tmpdir(), `browse-probe-${randomBytes(6).toString('hex')}`);

/** Every file under the repositories with its size and mtime: "nothing written" means this is unchanged. */
async function snapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const s = await stat(full);
    out.push(`${full} ${entry.isDirectory() ? 'd' : s.size} ${s.mtimeMs}`);
  }
  return out.sort();
}

beforeAll(async () => {
  h = await startHarness();
  // Warm the object reads once so lazily created files (if any) exist before the snapshot.
  await h.get(`${API}/tree/main`);
  before = await snapshot(path.join(h.storage.dataDir, 'repos'));
});
afterAll(async () => {
  await h.stop();
});

describe('bad input answers 4xx JSON, never a 500, and writes nothing', () => {
  it.each([
    ['tree/main/../etc/passwd', 404, 'Path not found: ../etc/passwd'],
    ['blob/main/src/../../etc/passwd', 404, 'Path not found: src/../../etc/passwd'],
    ['blob/main/%2e%2e/%2e%2e/etc/passwd', 404, 'Path not found: ../../etc/passwd'],
    ['raw/main/%2E%2E%2Fsecret', 404, 'Path not found: ../secret'],
    ['blob/main/./README.md', 404, 'Path not found: ./README.md'],
    ['tree/../main', 404, 'Ref not found: ..'],
    ['tree//etc/passwd', 404, 'Ref not found: etc'],
    ['blob/main//etc/passwd', 404, 'Path not found: etc/passwd'],
    ['blob/main/README.md%00.txt', 400, 'Invalid path'],
    ['tree/main%00', 400, 'Invalid path'],
    ['blob/main/..%5C..%5Cetc%5Cpasswd', 404, 'Path not found: ..\\..\\etc\\passwd'],
    ['blob/main/src%5Cmain.ts', 404, 'Path not found: src\\main.ts'],
    ['blob/main/%zz', 400, 'Invalid path encoding'],
    [`tree/--output=${encodeURIComponent(probe)}`, 404, `Ref not found: --output=`],
    [`commits/--output=${encodeURIComponent(probe)}`, 404, `Ref not found: --output=${probe}`],
    ['commits/-n', 404, 'Ref not found: -n'],
    ['tree/-n/src', 404, 'Ref not found: -n'],
    ['commits/--all', 404, 'Ref not found: --all'],
    [`tree/${'x'.repeat(2000)}/src`, 404, `Ref not found: ${'x'.repeat(2000)}`],
    [`commits/${'y'.repeat(2000)}`, 404, `Ref not found: ${'y'.repeat(2000)}`],
    ['tree/HEAD@%7B1%7D', 404, 'Ref not found: HEAD@{1}'],
    ['tree/HEAD', 404, 'Ref not found: HEAD'],
    ['tree/main~1', 404, 'Ref not found: main~1'],
    ['tree/main%5E', 404, 'Ref not found: main^'],
    ['blob/main:README.md', 404, 'Ref not found: main:README.md'],
    ['commits/main~1', 404, 'Ref not found: main~1'],
    ['commits/main..feature', 404, 'Ref not found: main..feature'],
    ['commits/b9e73e8', 404, 'Ref not found: b9e73e8'],
    ['commit/--output=x', 404, 'Commit not found: --output=x'],
    ['commit/HEAD', 404, 'Commit not found: HEAD'],
    ['commit/main~1', 404, 'Commit not found: main~1'],
    ['commit/xyz123', 404, 'Commit not found: xyz123'],
    [`commit/${'g'.repeat(40)}`, 404, `Commit not found: ${'g'.repeat(40)}`],
    [`commit/${'a'.repeat(41)}`, 404, `Commit not found: ${'a'.repeat(41)}`],
  ])('when asking %s, then %i %s', async (endpoint, status, message) => {
    const res = await h.get(`${API}/${endpoint}`);
    expect([res.status, res.json()]).toEqual([status, { error: message }]);
  });

  it.each(['-5', '1e9', 'abc', '--output=/tmp/x'])('when limit is %p, then the default 20 commits', async (limit) => {
    const res = await h.get(`${API}/commits/main?limit=${encodeURIComponent(limit)}`);
    expect([res.status, (res.json() as { commits: unknown[] }).commits.length]).toEqual([200, 20]);
  });

  it('when the method is not GET, then 404 JSON', async () => {
    const res = await h.get(`${API}/tree/main`, { method: 'POST' });
    expect([res.status, res.json()]).toEqual([404, { error: 'Not found' }]);
  });

  it('when the endpoint is unknown, then 404 JSON', async () => {
    const res = await h.get(`${API}/blame/main/README.md`);
    expect([res.status, res.json()]).toEqual([404, { error: 'Not found' }]);
  });

  it('when all the bad requests are done, then no file outside git was created and the repositories are unchanged', async () => {
    expect(existsSync(probe)).toBe(false);
    expect(existsSync('x')).toBe(false);
    expect(await snapshot(path.join(h.storage.dataDir, 'repos'))).toEqual(before);
  });
});
