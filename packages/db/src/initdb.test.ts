import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { START_PARAMS } from './embedded.js';
import { holdsDatabase, initialise, pgliteVersion, TEMPLATE_DIR } from './initdb.js';

/** The cluster's identity: initdb makes a new one, a copy keeps its template's. */
async function systemIdentifier(dir: string): Promise<string> {
  const db = new PGlite(dir, { startParams: START_PARAMS });
  try {
    const { rows } = await db.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()');
    return rows[0]!.id;
  } finally {
    await db.close();
  }
}

describe('making an embedded data directory', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'pglite-initdb-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('when the build made a template, then fresh directories are copies of it, owner-only, without its stamp', async () => {
    expect(holdsDatabase(TEMPLATE_DIR)).toBe(true);
    const a = path.join(root, 'a', 'db', 'shared');
    const b = path.join(root, 'b', 'db', 'shared');
    await initialise(a, START_PARAMS);
    await initialise(b, START_PARAMS);
    expect(holdsDatabase(a)).toBe(true);
    expect(existsSync(path.join(a, 'githost-template.json'))).toBe(false);
    expect(statSync(path.dirname(a)).mode & 0o777).toBe(0o700);
    expect(await systemIdentifier(a)).toBe(await systemIdentifier(b));
    // Nothing made beside it is left.
    expect(readdirSync(path.dirname(a))).toEqual(['shared']);
  });

  it('when the template was made by another PGlite, then it is not used and initdb runs', async () => {
    const stale = path.join(root, 'stale-template');
    cpSync(TEMPLATE_DIR, stale, { recursive: true });
    writeFileSync(path.join(stale, 'githost-template.json'), JSON.stringify({ pglite: `${pgliteVersion()}-other` }));
    const fromStale = path.join(root, 'stale', 'shared');
    const fromBuild = path.join(root, 'build', 'shared');
    await initialise(fromStale, START_PARAMS, { template: stale });
    await initialise(fromBuild, START_PARAMS);
    expect(holdsDatabase(fromStale)).toBe(true);
    expect(await systemIdentifier(fromStale)).not.toBe(await systemIdentifier(fromBuild));
  }, 60_000);

  it('when the place holds files but no database, then they are moved aside, never deleted, and a database is made', async () => {
    const dir = path.join(root, 'occupied', 'shared');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'notes.txt'), 'keep me');
    await initialise(dir, START_PARAMS);
    expect(holdsDatabase(dir)).toBe(true);
    const aside = readdirSync(path.dirname(dir)).filter((n) => n.startsWith('shared.incomplete-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(path.dirname(dir), aside[0]!, 'notes.txt'), 'utf8')).toBe('keep me');
  });

  it('when a start is killed while initdb runs, then the next start makes a whole database and removes what was left', async () => {
    const dir = path.join(root, 'killed', 'shared');
    mkdirSync(path.dirname(dir), { recursive: true });
    const module = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'initdb.js');
    const script = `const { initialise } = await import(${JSON.stringify(module)}); await initialise(process.argv[1], JSON.parse(process.argv[2]), { template: null });`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, dir, JSON.stringify(START_PARAMS)], { stdio: 'ignore', detached: true });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Killed once initdb has begun writing beside the place.
    const deadline = Date.now() + 20_000;
    const staged = () => readdirSync(path.dirname(dir)).filter((n) => n.startsWith('shared.initdb-'));
    while (Date.now() < deadline && !staged().some((n) => existsSync(path.join(path.dirname(dir), n, 'base')))) await new Promise((r) => setTimeout(r, 20));
    // The whole group, initdb's own child too, as a pod's processes die together.
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
    expect(holdsDatabase(dir)).toBe(false);
    expect(staged()).toHaveLength(1);

    await initialise(dir, START_PARAMS);
    expect(holdsDatabase(dir)).toBe(true);
    expect(staged()).toEqual([]);
    expect((await systemIdentifier(dir)).length).toBeGreaterThan(0);
  }, 60_000);
});
