import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile, chmod } from 'node:fs/promises';
import path from 'node:path';
import { conflict } from '@githost/errors';
import { runGit } from './command.js';

/** Env var naming the file the post-receive hook appends `<old> <new> <ref>` lines to. */
export const PUSH_LOG_ENV = 'GITHOST_PUSH_LOG';

// The hook only records; events are built by the service after receive-pack exits, so a push
// made outside the service (no env var) records nothing and costs one `sh`.
const POST_RECEIVE = `#!/bin/sh
# githost: record updated refs for push events (see services/git-storage/src/http/receive-pack.ts)
if [ -n "$${PUSH_LOG_ENV}" ]; then cat >> "$${PUSH_LOG_ENV}"; else cat > /dev/null; fi
exit 0
`;

/** Repository configuration written at creation (Gitaly-style: the service does housekeeping itself). */
const CONFIG: Array<[string, string]> = [
  ['gc.auto', '0'],
  ['receive.autogc', 'false'],
  // A server that refuses to rewrite history: a forced non-fast-forward push gets git's own refusal.
  ['receive.denyNonFastForwards', 'true'],
  ['receive.unpackLimit', '100'],
  ['core.fsync', 'objects,derived-metadata,reference'],
  ['core.fsyncMethod', 'fsync'],
  ['uploadpack.allowFilter', 'true'],
  ['repack.writeBitmaps', 'true'],
  ['core.hooksPath', 'hooks'],
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
  await mkdir(path.dirname(gitDir), { recursive: true });
  const scratch = `${gitDir}.tmp-${randomBytes(6).toString('hex')}`;
  try {
    await runGit({ name: 'init', flags: ['--bare', '--quiet', '--template=', `--initial-branch=${defaultBranch}`], args: [scratch] });
    for (const [key, value] of CONFIG) await runGit({ name: 'config', flags: ['--local'], args: [key, value] }, { gitDir: scratch });
    await mkdir(path.join(scratch, 'hooks'), { recursive: true });
    const hook = path.join(scratch, 'hooks', 'post-receive');
    await writeFile(hook, POST_RECEIVE);
    await chmod(hook, 0o755);
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
