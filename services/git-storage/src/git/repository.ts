import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { conflict } from '@githost/errors';
import { runGit } from './command.js';

/** Repository configuration written at creation (Gitaly-style: the service does housekeeping itself). */
const CONFIG: Array<[string, string]> = [
  ['gc.auto', '0'],
  ['receive.autogc', 'false'],
  ['receive.unpackLimit', '100'],
  ['core.fsync', 'objects,derived-metadata,reference'],
  ['core.fsyncMethod', 'fsync'],
  ['uploadpack.allowFilter', 'true'],
  ['repack.writeBitmaps', 'true'],
];

export async function repositoryExists(gitDir: string): Promise<boolean> {
  try {
    return (await stat(path.join(gitDir, 'HEAD'))).isFile();
  } catch {
    return false;
  }
}

/**
 * Creates the bare repository in a scratch directory and renames it into place, so a repository
 * is either absent or complete, and two concurrent creations cannot both succeed.
 */
export async function createBareRepository(gitDir: string, defaultBranch: string): Promise<void> {
  if (await repositoryExists(gitDir)) throw conflict('Repository already exists');
  await mkdir(path.dirname(gitDir), { recursive: true, mode: 0o700 });
  const scratch = `${gitDir}.tmp-${randomBytes(6).toString('hex')}`;
  try {
    await runGit({ name: 'init', flags: ['--bare', '--quiet', '--template=', `--initial-branch=${defaultBranch}`], args: [scratch] });
    for (const [key, value] of CONFIG) await runGit({ name: 'config', flags: ['--local'], args: [key, value] }, { gitDir: scratch });
    // init under core.sharedRepository (gitEnv) also writes receive.denyNonFastForwards=true;
    // force pushes are for the ref policy to decide (docs/decisions/branch-protection.md).
    await runGit({ name: 'config', flags: ['--local', '--unset'], args: ['receive.denyNonFastForwards'] }, { gitDir: scratch });
    try {
      await rename(scratch, gitDir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') throw conflict('Repository already exists');
      throw err;
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Moves the repository aside atomically, then deletes it. */
export async function removeBareRepository(gitDir: string): Promise<void> {
  if (!(await repositoryExists(gitDir))) return;
  const trash = `${gitDir}.deleted-${randomBytes(6).toString('hex')}`;
  await rename(gitDir, trash);
  await rm(trash, { recursive: true, force: true });
}
