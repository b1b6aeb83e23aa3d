import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureAdminToken } from './admin-token.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('bootstrap admin token', () => {
  it('when none exists, then one is generated into DATA_DIR/admin-token readable by the owner only, and reused next time', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'githost-launcher-'));
    dirs.push(dir);
    const first = ensureAdminToken(path.join(dir, 'data'));
    expect(first.created).toBe(true);
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    const second = ensureAdminToken(path.join(dir, 'data'));
    expect([second.created, second.token, second.file]).toEqual([false, first.token, first.file]);
  });
});
