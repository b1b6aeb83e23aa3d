// `npm run backup -- DIR`: a consistent snapshot of a githost while it serves
// (docs/decisions/backup.md, docs/operating.md#backup-and-restore). Reads DATA_DIR and
// DATABASE_URL as the services do. Order: the database first (pg_dump: one transaction snapshot
// of every service's schema), then each repository's refs, then exactly those refs' objects, then
// the LFS objects; so git is never behind the database, and restore reconciles what moved after.
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import console from 'node:console';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const MANIFEST = 'manifest.json';
export const FORMAT = 1;
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** git with no user or system configuration: a backup must not depend on the operator's. */
export function git(args, opts = {}) {
  return run('git', args, { ...opts, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...opts.env } });
}

export async function sha256File(file) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}

/** Every folder under DATA_DIR holding storage data: the default shard and `shards/<name>`. */
export async function storageRoots(dataDir) {
  const roots = [''];
  const shards = path.join(dataDir, 'shards');
  if (existsSync(shards)) for (const e of await readdir(shards, { withFileTypes: true })) if (e.isDirectory()) roots.push(path.join('shards', e.name));
  return roots;
}

/** Bare repositories under `<root>/repos/@hashed/xx/yy/<hash>.git`, relative to DATA_DIR. */
async function repositories(dataDir) {
  const out = [];
  for (const r of await storageRoots(dataDir)) {
    const hashed = path.join(dataDir, r, 'repos', '@hashed');
    if (!existsSync(hashed)) continue;
    for (const a of await readdir(hashed)) {
      for (const b of await readdir(path.join(hashed, a))) {
        for (const name of await readdir(path.join(hashed, a, b))) {
          if (name.endsWith('.git')) out.push(path.join(r, 'repos', '@hashed', a, b, name));
        }
      }
    }
  }
  return out.sort();
}

/** LFS objects `<root>/lfs/<repo hash>/...`, skipping uploads in progress and deleted objects. */
async function lfsObjects(dataDir) {
  const out = [];
  const walk = async (rel) => {
    for (const e of await readdir(path.join(dataDir, rel), { withFileTypes: true })) {
      const child = path.join(rel, e.name);
      if (e.isDirectory()) await walk(child);
      else if (e.isFile()) out.push(child);
    }
  };
  for (const r of await storageRoots(dataDir)) {
    const lfs = path.join(dataDir, r, 'lfs');
    if (!existsSync(lfs)) continue;
    for (const e of await readdir(lfs, { withFileTypes: true })) {
      if (e.isDirectory() && e.name !== 'tmp' && e.name !== 'deleted') await walk(path.join(r, 'lfs', e.name));
    }
  }
  return out.sort();
}

async function dumpDatabase(dataDir, databaseUrl, dir) {
  if (databaseUrl) {
    // --serializable-deferrable: a snapshot no concurrent transaction can make inconsistent.
    run('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', '--serializable-deferrable', '--file', path.join(dir, 'database.dump'), databaseUrl]);
    return { kind: 'postgres', file: 'database.dump', sha256: await sha256File(path.join(dir, 'database.dump')), pgDump: run('pg_dump', ['--version']).trim() };
  }
  // The embedded PGlite is one process's: githost must be stopped (docs/operating.md#backup-and-restore).
  const dbRoot = path.join(dataDir, 'db');
  const dumps = [];
  if (existsSync(dbRoot)) {
    const { PGlite } = await import('@electric-sql/pglite');
    for (const e of await readdir(dbRoot, { withFileTypes: true })) {
      if (!e.isDirectory() || !existsSync(path.join(dbRoot, e.name, 'PG_VERSION'))) continue;
      if (existsSync(path.join(dbRoot, e.name, 'postmaster.pid'))) throw new Error(`the embedded database ${e.name} is open: stop githost first (one killed without stopping leaves it marked open: start and stop it once), or run it on Postgres (DATABASE_URL) to back up while it serves`);
      const db = new PGlite(path.join(dbRoot, e.name));
      await db.waitReady; // a dump asked before it is ready never settles
      const tar = await db.dumpDataDir('gzip');
      await db.close();
      const file = `pglite-${e.name}.tar.gz`;
      await writeFile(path.join(dir, file), Buffer.from(await tar.arrayBuffer()));
      dumps.push({ name: e.name, file, sha256: await sha256File(path.join(dir, file)) });
    }
  }
  return { kind: 'pglite', dumps };
}

/**
 * One repository: its refs are read first, then a bundle of exactly those tips is written from a
 * scratch repository that borrows the live one's objects (alternates), so a push landing meanwhile
 * neither changes what is saved nor fails the bundle.
 */
async function backupRepository(dataDir, rel, dir, scratchRoot) {
  const live = path.join(dataDir, rel);
  const refs = {};
  for (const line of git(['-C', live, 'for-each-ref', '--format=%(objectname) %(refname)']).split('\n')) {
    if (!line) continue;
    const [sha, name] = line.split(' ');
    refs[name] = sha;
  }
  const headOut = spawnSync('git', ['-C', live, 'symbolic-ref', 'HEAD'], { encoding: 'utf8' });
  const head = headOut.status === 0 ? headOut.stdout.trim() : null;
  const entry = { path: rel, head, refs, bundle: null, sha256: null };
  if (Object.keys(refs).length === 0) return entry;
  const scratch = await mkdtemp(path.join(scratchRoot, 'repo-'));
  git(['init', '-q', '--bare', scratch]);
  await writeFile(path.join(scratch, 'objects', 'info', 'alternates'), `${path.join(live, 'objects')}\n`);
  const updates = Object.entries(refs).map(([name, sha]) => `create ${name} ${sha}\n`).join('');
  git(['-C', scratch, 'update-ref', '--stdin'], { input: updates });
  const bundle = path.join('repos', `${path.basename(rel, '.git')}.bundle`);
  git(['-C', scratch, 'bundle', 'create', '-q', path.join(dir, bundle), '--all']);
  await rm(scratch, { recursive: true, force: true });
  entry.bundle = bundle;
  entry.sha256 = await sha256File(path.join(dir, bundle));
  return entry;
}

/** Tests only: after the database dump, write `<file>.paused` and wait until `<file>` is gone, so a
 *  test can move refs between the database snapshot and the refs. */
async function pauseForTest(file) {
  if (!file) return;
  await writeFile(`${file}.paused`, '');
  while (existsSync(file)) await sleep(50);
}

export async function backup(dir, env = process.env) {
  const dataDir = env.DATA_DIR ? path.resolve(env.DATA_DIR) : path.join(root, 'data');
  const databaseUrl = env.DATABASE_URL || undefined;
  if (!existsSync(dataDir)) throw new Error(`DATA_DIR ${dataDir} does not exist`);
  await mkdir(dir, { recursive: true });
  if ((await readdir(dir)).length > 0) throw new Error(`${dir} is not empty: a backup goes into a new folder`);
  await mkdir(path.join(dir, 'repos'));
  await mkdir(path.join(dir, 'lfs'));
  const startedAt = new Date().toISOString();
  const database = await dumpDatabase(dataDir, databaseUrl, dir);
  await pauseForTest(env.GITHOST_BACKUP_TEST_PAUSE);
  const scratchRoot = await mkdtemp(path.join(dir, '.scratch-'));
  const repos = [];
  try {
    for (const rel of await repositories(dataDir)) repos.push(await backupRepository(dataDir, rel, dir, scratchRoot));
  } finally {
    await rm(scratchRoot, { recursive: true, force: true });
  }
  const lfs = [];
  for (const rel of await lfsObjects(dataDir)) {
    const to = path.join(dir, rel);
    await mkdir(path.dirname(to), { recursive: true });
    await copyFile(path.join(dataDir, rel), to);
    lfs.push({ path: rel, size: (await stat(to)).size, sha256: await sha256File(to) });
  }
  // SSH host keys: clients pinned them in known_hosts.
  const ssh = [];
  if (existsSync(path.join(dataDir, 'ssh'))) {
    await mkdir(path.join(dir, 'ssh'));
    for (const name of await readdir(path.join(dataDir, 'ssh'))) {
      await copyFile(path.join(dataDir, 'ssh', name), path.join(dir, 'ssh', name));
      ssh.push({ path: path.join('ssh', name), sha256: await sha256File(path.join(dir, 'ssh', name)) });
    }
  }
  // The launcher's version is githost's (the root package has none).
  const pkg = JSON.parse(await readFile(path.join(root, 'launcher', 'package.json'), 'utf8').catch(() => readFile(path.join(root, 'package.json'), 'utf8')));
  const commit = spawnSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
  const manifest = {
    format: FORMAT,
    startedAt,
    finishedAt: new Date().toISOString(),
    versions: {
      githost: pkg.version ?? null,
      commit: commit.status === 0 ? commit.stdout.trim() : null,
      git: run('git', ['--version']).trim(),
      node: process.version,
    },
    database,
    repositories: repos,
    lfs,
    ssh,
  };
  await writeFile(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Owner only, as everything under DATA_DIR (docs/operating.md#files-under-data_dir): a backup holds SSH host keys and tokens' hashes.
  process.umask(0o077);
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: npm run backup -- DIR   (reads DATA_DIR and DATABASE_URL as githost does)');
    process.exit(2);
  }
  try {
    const m = await backup(path.resolve(dir));
    console.log(`backup in ${path.resolve(dir)}: database (${m.database.kind}), ${m.repositories.length} repositories, ${m.lfs.length} LFS objects`);
  } catch (err) {
    console.error(`backup failed: ${err.message}`);
    process.exit(1);
  }
}
