import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, open, readdir, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const require = createRequire(import.meta.url);

/**
 * Making an embedded (PGlite) data directory (docs/embedded-mode.md). initdb in WASM
 * takes ~5 s, most of a fresh start: the build runs it once into a template
 * (`dist/pglite-template`, made by make-template.ts), and a fresh data directory is a synced copy
 * of it (0.2-0.7 s). Without a template that fits the installed PGlite, initdb runs as before.
 *
 * Either way the directory is made beside its place and renamed into it once whole, so a start
 * killed at any moment leaves no half-made database that a later start would take for a whole one.
 */

/** The build's template, beside src/ and dist/ alike. */
export const TEMPLATE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'pglite-template');

/** Written into the template only: which PGlite made it. */
const STAMP = 'githost-template.json';

/** True when `dir` already holds an initialised Postgres data directory. */
export function holdsDatabase(dir: string): boolean {
  return existsSync(path.join(dir, 'PG_VERSION'));
}

/** The installed PGlite's version: a template made by another is never used. */
export function pgliteVersion(): string {
  let dir = path.dirname(require.resolve('@electric-sql/pglite'));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error('embedded database: cannot find the version of @electric-sql/pglite');
    dir = up;
  }
}

/** `template` when it holds a database made by the installed PGlite, else undefined. */
function usableTemplate(template: string | null): string | undefined {
  if (!template || !holdsDatabase(template)) return undefined;
  try {
    const stamp = JSON.parse(readFileSync(path.join(template, STAMP), 'utf8')) as { pglite?: string };
    return stamp.pglite === pgliteVersion() ? template : undefined;
  } catch {
    return undefined;
  }
}

/** Run by `node --input-type=module -e` with argv [pglite module URL, data dir, start params JSON]. */
const INITDB_SCRIPT = `
const [url, dir, params] = process.argv.slice(1);
const { PGlite } = await import(url);
const db = new PGlite(dir, { startParams: JSON.parse(params) });
await db.waitReady;
await db.close();
`;

/**
 * initdb runs a second WASM Postgres next to the first and leaves ~770 MiB of WASM memory behind
 * that is never returned: it runs in a short-lived child process.
 */
async function initdbInChild(dir: string, startParams: readonly string[]): Promise<void> {
  const pglite = pathToFileURL(require.resolve('@electric-sql/pglite')).href;
  try {
    await execFileAsync(process.execPath, ['--input-type=module', '-e', INITDB_SCRIPT, pglite, dir, JSON.stringify(startParams)], { maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`embedded database: initdb in ${dir} failed: ${stderr.trim() || (err as Error).message}`);
  }
  if (!holdsDatabase(dir)) throw new Error(`embedded database: initdb left no database in ${dir}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes what starts killed while making `dir` left beside it (never another live start's). */
async function removeAbandoned(dir: string): Promise<void> {
  const prefix = `${path.basename(dir)}.initdb-`;
  for (const name of await readdir(path.dirname(dir))) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-', 1)[0]);
    if (Number.isInteger(pid) && pid > 0 && !isRunning(pid)) await rm(path.join(path.dirname(dir), name), { recursive: true, force: true });
  }
}

/**
 * A directory in the database's place that holds no database: empty, it goes; with files in it
 * (something not made here), it is moved aside, never deleted.
 */
async function clearPlace(dir: string): Promise<void> {
  if (!existsSync(dir) || holdsDatabase(dir)) return;
  if ((await readdir(dir)).length === 0) await rmdir(dir);
  else await rename(dir, `${dir}.incomplete-${Date.now()}`);
}

/** A directory's files and directories (itself included, each after its entries), relative to it. */
interface Tree {
  files: string[];
  dirs: string[];
}

async function listTree(root: string, keepTop: (name: string) => boolean = () => true): Promise<Tree> {
  const tree: Tree = { files: [], dirs: [] };
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await readdir(path.join(root, rel), { withFileTypes: true })) {
      if (rel === '' && !keepTop(entry.name)) continue;
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) tree.files.push(child);
    }
    tree.dirs.push(rel);
  };
  await walk('');
  return tree;
}

/** Copies `from`'s tree to a new directory `to`, a few files at a time (fs.cp, one at a time, took
 *  1.4-2 s here; this and the sync after it, 0.2-0.7 s); `to`'s tree is `tree`. */
async function copyTree(from: string, to: string, tree: Tree): Promise<void> {
  // Parents first: the list has each directory after its entries.
  for (const dir of [...tree.dirs].reverse()) await mkdir(path.join(to, dir), { mode: 0o700 });
  await inParallel(tree.files, FILES_AT_ONCE, (file) => copyFile(path.join(from, file), path.join(to, file)));
}

/**
 * On disk before it is renamed into place, as Postgres' own initdb syncs its data directory: a
 * power loss right after a first start must not leave files that a later start reads as empty.
 * ~1,000 files: synced a few at a time (one by one took 1.3 s here), directories after their
 * entries.
 */
async function syncTree(root: string, tree: Tree): Promise<void> {
  await inParallel(tree.files, FILES_AT_ONCE, (file) => syncPath(path.join(root, file)));
  await inParallel(tree.dirs, FILES_AT_ONCE, (dir) => syncPath(path.join(root, dir)));
}

/** Few enough open descriptors for any ulimit, enough to keep the disk queue busy. */
const FILES_AT_ONCE = 16;

async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runner = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, runner));
}

/** fsync of a file, or of a directory (its entries), opened read-only. */
async function syncPath(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface InitialiseOptions {
  /** The template to copy; null: run initdb whatever the build left (tests). */
  template?: string | null;
}

/**
 * Runs `make` on a fresh directory beside `dir` (named for this process, so a later start can tell
 * an abandoned one) and removes it afterwards whatever happened; `make` renames it into place.
 */
async function beside(dir: string, make: (staging: string) => Promise<void>): Promise<void> {
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  await removeAbandoned(dir);
  const staging = `${dir}.initdb-${process.pid}-${Date.now()}`;
  try {
    await make(staging);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Makes `dir` an initialised data directory unless it is one already. */
export async function initialise(dir: string, startParams: readonly string[], opts: InitialiseOptions = {}): Promise<void> {
  if (holdsDatabase(dir)) return;
  await beside(dir, async (staging) => {
    const template = usableTemplate(opts.template === undefined ? TEMPLATE_DIR : opts.template);
    let tree: Tree;
    if (template) {
      tree = await listTree(template, (name) => name !== STAMP);
      await copyTree(template, staging, tree);
    } else {
      await initdbInChild(staging, startParams);
      tree = await listTree(staging);
    }
    await syncTree(staging, tree);
    await clearPlace(dir);
    try {
      await rename(staging, dir);
    } catch (err) {
      // Another start made it meanwhile: theirs is kept, ours goes.
      if (!holdsDatabase(dir)) throw err;
    }
    await syncPath(path.dirname(dir));
  });
}

/** The build step: (re)makes the template at `dir` unless one made by the installed PGlite is there. */
export async function makeTemplate(dir: string, startParams: readonly string[]): Promise<boolean> {
  if (usableTemplate(dir)) return false;
  await beside(dir, async (staging) => {
    await initdbInChild(staging, startParams);
    await writeFile(path.join(staging, STAMP), `${JSON.stringify({ pglite: pgliteVersion() })}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  });
  return true;
}
