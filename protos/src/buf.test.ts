import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROTO_ROOT } from './index.js';

/** The contracts between services, checked with buf (docs/decisions/proto-contracts.md): part of `npm test`, so CI runs it. */
const buf = createRequire(import.meta.url).resolve('@bufbuild/buf/bin/buf');
const check = path.join(PROTO_ROOT, 'scripts', 'buf-check.mjs');

describe('buf', () => {
  it('when the protos are linted and compared with the merge-base with main, then buf finds nothing', () => {
    const r = spawnSync(process.execPath, [check], { cwd: PROTO_ROOT, encoding: 'utf8' });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^buf lint and buf breaking \(against [0-9a-f]{12}\): clean$/m);
  });

  it('when a field is removed, then buf breaking refuses the change naming it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'githost-protos-changed-'));
    try {
      cpSync(path.join(PROTO_ROOT, 'githost'), path.join(dir, 'githost'), { recursive: true });
      cpSync(path.join(PROTO_ROOT, 'buf.yaml'), path.join(dir, 'buf.yaml'));
      const file = path.join(dir, 'githost', 'storage', 'v1', 'storage.proto');
      const text = readFileSync(file, 'utf8');
      const changed = text.replace(/(message ListRefsRequest \{[^}]*?)\n\s*repeated string prefixes = 2;/, '$1');
      expect(changed).not.toBe(text);
      writeFileSync(file, changed);
      const r = spawnSync(buf, ['breaking', '--against', PROTO_ROOT], { cwd: dir, encoding: 'utf8' });
      expect(r.status).not.toBe(0);
      expect(r.stdout + r.stderr).toContain('Previously present field "2" with name "prefixes" on message "ListRefsRequest" was deleted');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
