// `npm run restore -- DIR`: brings a backup of `npm run backup` up in a new DATA_DIR and a new
// (empty) database (DATABASE_URL), or the embedded one under DATA_DIR when unset. Every file is
// checked against the manifest's checksum, every ref against the manifest, every repository with
// git fsck; then merge requests are reconciled with the refs, which may be ahead of the database
// (docs/decisions/backup.md#consistency).
import { Blob } from 'node:buffer';
import console from 'node:console';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { FORMAT, MANIFEST, git, run, sha256File } from './backup.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

async function checked(dir, rel, sha256) {
  const file = path.join(dir, rel);
  const actual = await sha256File(file);
  if (actual !== sha256) throw new Error(`${rel}: checksum ${actual} is not the manifest's ${sha256}`);
  return file;
}

const repoHash = (id) => createHash('sha256').update(id).digest('hex');

/** Whether `a` is an ancestor of `b`; false too when git cannot tell (a commit missing). */
function isAncestor(repo, a, b) {
  try {
    git(['-C', repo, 'merge-base', '--is-ancestor', a, b], { stdio: ['ignore', 'pipe', 'pipe'] });
    return true;
  } catch {
    return false;
  }
}

/**
 * The commit the target branch was moved to when `head` entered it: `head` itself when it lies on
 * the target's first-parent line (a fast-forward), else the oldest commit of that line containing
 * it (the merge commit).
 */
export function mergePoint(repo, head, target) {
  const line = git(['-C', repo, 'rev-list', '--first-parent', '--reverse', `${head}..${target}`]).split('\n').filter(Boolean);
  if (line.length === 0) return head;
  const parent = git(['-C', repo, 'rev-parse', `${line[0]}^`]).trim();
  if (parent === head) return head;
  const descendants = new Set(git(['-C', repo, 'rev-list', '--ancestry-path', `${head}..${target}`]).split('\n').filter(Boolean));
  return line.find((c) => descendants.has(c)) ?? target;
}

/**
 * The database was snapshotted before the refs were read, so a ref may be ahead of what the
 * database recorded: the rule githost applies to a push is applied once to every open merge
 * request (services/merge-requests/README.md#following-pushes-consumer): a source branch that
 * moved sets head_sha; a target that contains head_sha marks it merged (merged_sha = the head).
 * A merge whose intent was recorded before the snapshot is left to merge-requests' own recovery.
 */
export async function reconcileMergeRequests(query, repoPathOf) {
  const out = { synchronized: [], merged: [] };
  const [{ present }] = await query(`SELECT to_regclass('merge_requests.merge_requests') IS NOT NULL AS present`);
  if (!present) return out; // a database merge-requests never started on
  const open = await query(`SELECT id, repo_id, number, source_branch, target_branch, head_sha FROM merge_requests.merge_requests
    WHERE state = 'open' AND NOT EXISTS (SELECT 1 FROM merge_requests.merge_intents i WHERE i.mr_id = merge_requests.id)`);
  for (const mr of open) {
    const repo = repoPathOf(mr.repo_id);
    if (!repo) continue;
    const tipOf = (branch) => {
      try {
        return git(['-C', repo, 'rev-parse', '--verify', '-q', `refs/heads/${branch}^{commit}`]).trim();
      } catch {
        return null;
      }
    };
    let head = mr.head_sha;
    const source = tipOf(mr.source_branch);
    if (source && source !== head) {
      head = source;
      await query(`UPDATE merge_requests.merge_requests SET head_sha = $1, updated_at = clock_timestamp() WHERE id = $2`, [head, mr.id]);
      out.synchronized.push(`${mr.repo_id}!${mr.number}`);
    }
    const target = tipOf(mr.target_branch);
    if (target && head && isAncestor(repo, head, target)) {
      await query(`UPDATE merge_requests.merge_requests SET state = 'merged', merged_sha = $1, updated_at = clock_timestamp() WHERE id = $2`, [mergePoint(repo, head, target), mr.id]);
      out.merged.push(`${mr.repo_id}!${mr.number}`);
    }
  }
  return out;
}

async function restoreDatabase(dir, manifest, dataDir, databaseUrl) {
  const db = manifest.database;
  if (db.kind === 'postgres') {
    if (!databaseUrl) throw new Error('the backup holds a Postgres dump: set DATABASE_URL to a new, empty database');
    const file = await checked(dir, db.file, db.sha256);
    run('pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', '--dbname', databaseUrl, file]);
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return { query: async (sql, params) => (await client.query(sql, params)).rows, close: () => client.end() };
  }
  if (databaseUrl) throw new Error('the backup holds the embedded database: unset DATABASE_URL (it is restored under DATA_DIR/db)');
  const { PGlite } = await import('@electric-sql/pglite');
  let shared;
  for (const d of db.dumps) {
    const file = await checked(dir, d.file, d.sha256);
    const target = path.join(dataDir, 'db', d.name);
    await mkdir(path.dirname(target), { recursive: true });
    const pglite = new PGlite(target, { loadDataDir: new Blob([await readFile(file)]) });
    await pglite.waitReady;
    if (d.name === 'shared' || d.name === 'merge-requests') shared = pglite;
    else await pglite.close();
  }
  if (!shared) return { query: async () => [], close: async () => undefined };
  // A service's own PGlite (not the launcher's shared one) names its schema the same way.
  return { query: async (sql, params) => (await shared.query(sql, params)).rows, close: () => shared.close() };
}

export async function restore(dir, env = process.env) {
  const manifest = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8'));
  if (manifest.format !== FORMAT) throw new Error(`backup format ${manifest.format} is not ${FORMAT}`);
  const dataDir = env.DATA_DIR ? path.resolve(env.DATA_DIR) : path.join(root, 'data');
  const databaseUrl = env.DATABASE_URL || undefined;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if ((await readdir(dataDir)).length > 0) throw new Error(`DATA_DIR ${dataDir} is not empty: restore into a new one`);

  // Repositories and LFS first: the reconciliation reads the refs.
  const byHash = new Map();
  for (const r of manifest.repositories) {
    const repo = path.join(dataDir, r.path);
    await mkdir(path.dirname(repo), { recursive: true, mode: 0o700 });
    git(['init', '-q', '--bare', repo]);
    if (r.bundle) {
      const bundle = await checked(dir, r.bundle, r.sha256);
      git(['-C', repo, 'fetch', '-q', '--no-write-fetch-head', bundle, 'refs/*:refs/*']);
    }
    if (r.head) git(['-C', repo, 'symbolic-ref', 'HEAD', r.head]);
    for (const [name, sha] of Object.entries(r.refs)) {
      const at = git(['-C', repo, 'rev-parse', '--verify', '-q', name]).trim();
      if (at !== sha) throw new Error(`${r.path}: ${name} is ${at}, the manifest says ${sha}`);
    }
    git(['-C', repo, 'fsck', '--no-progress', '--no-dangling']);
    byHash.set(path.basename(r.path, '.git'), repo);
  }
  for (const o of manifest.lfs) {
    const to = path.join(dataDir, o.path);
    await mkdir(path.dirname(to), { recursive: true, mode: 0o700 });
    await copyFile(await checked(dir, o.path, o.sha256), to);
  }
  for (const k of manifest.ssh ?? []) {
    await mkdir(path.join(dataDir, 'ssh'), { recursive: true, mode: 0o700 });
    await copyFile(await checked(dir, k.path, k.sha256), path.join(dataDir, k.path));
  }
  const db = await restoreDatabase(dir, manifest, dataDir, databaseUrl);
  try {
    const reconciled = await reconcileMergeRequests(db.query, (id) => byHash.get(repoHash(id)));
    await writeFile(path.join(dataDir, 'restored-from.json'), `${JSON.stringify({ backup: dir, startedAt: manifest.startedAt, reconciled }, null, 2)}\n`, { mode: 0o600 });
    return { manifest, reconciled };
  } finally {
    await db.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Owner only, as everything under DATA_DIR (docs/operating.md#files-under-data_dir): a backup holds SSH host keys and tokens' hashes.
  process.umask(0o077);
  const dir = process.argv[2];
  if (!dir || !existsSync(path.join(dir, MANIFEST))) {
    console.error('usage: npm run restore -- DIR   (DIR holds manifest.json; restores into DATA_DIR and DATABASE_URL)');
    process.exit(2);
  }
  try {
    const { manifest, reconciled } = await restore(path.resolve(dir));
    console.log(`restored ${manifest.repositories.length} repositories, ${manifest.lfs.length} LFS objects, database (${manifest.database.kind}); merge requests moved on by the refs: ${reconciled.synchronized.length} synchronized, ${reconciled.merged.length} merged`);
  } catch (err) {
    console.error(`restore failed: ${err.message}`);
    process.exit(1);
  }
}
