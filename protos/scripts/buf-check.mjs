// `buf lint` and `buf breaking` over the gRPC contracts (docs/decisions/proto-contracts.md): services
// are deployed one at a time, so a proto change must not break the previous version's peers.
// The protos are compared with those of the merge-base with main; on main itself (CI's clone),
// with main before the last commit (for a merge, main before the merge).
// Usage: node scripts/buf-check.mjs [--against <git revision>]
import { spawnSync } from 'node:child_process';
import console from 'node:console';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const protos = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const buf = createRequire(import.meta.url).resolve('@bufbuild/buf/bin/buf');

function git(...args) {
  const r = spawnSync('git', args, { cwd: protos, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The revision to compare with: --against, else the merge-base with main, else HEAD's parent on main. */
export function baseRevision(argv = process.argv) {
  const i = argv.indexOf('--against');
  if (i >= 0) return argv[i + 1];
  const head = git('rev-parse', 'HEAD');
  if (!head) return undefined;
  for (const main of ['main', 'origin/main']) {
    const base = git('merge-base', 'HEAD', main);
    if (base && base !== head) return base;
  }
  return git('rev-parse', '--verify', '-q', 'HEAD^');
}

/** buf's findings (empty when clean) and the revision compared with. */
export function check(argv = process.argv) {
  const findings = [];
  const lint = spawnSync(buf, ['lint'], { cwd: protos, encoding: 'utf8' });
  if (lint.status !== 0) findings.push(`buf lint:\n${lint.stdout}${lint.stderr}`);
  const base = baseRevision(argv);
  if (!base) return { findings, base: undefined };
  const dir = mkdtempSync(path.join(tmpdir(), 'githost-protos-base-'));
  try {
    const prefix = git('rev-parse', '--show-prefix'); // "protos/" inside the repository
    const top = git('rev-parse', '--show-toplevel');
    const archive = spawnSync('bash', ['-c', `set -o pipefail; git archive "$0" "$1" | tar -x -C "$2"`, base, `${prefix}githost`, dir], { cwd: top, encoding: 'utf8' });
    if (archive.status !== 0) throw new Error(`git archive ${base}: ${archive.stderr}`);
    const breaking = spawnSync(buf, ['breaking', '--against', path.join(dir, prefix)], { cwd: protos, encoding: 'utf8' });
    if (breaking.status !== 0) findings.push(`buf breaking against ${base}:\n${breaking.stdout}${breaking.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { findings, base };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { findings, base } = check();
  if (findings.length > 0) {
    console.error(findings.join('\n'));
    process.exit(1);
  }
  console.log(base ? `buf lint and buf breaking (against ${base.slice(0, 12)}): clean` : 'buf lint: clean; buf breaking skipped: no git history to compare with');
}
