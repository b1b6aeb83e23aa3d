import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';

/** fsyncs a folder, making the entries renamed or made in it durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  await handle.sync().finally(() => handle.close());
}

/**
 * Makes `dir` and its missing parents (0700) and, when it made any, fsyncs every folder whose
 * entries it changed, deepest first: a file renamed into a new folder is durable only once the
 * new folders' own entries are (POSIX; ext4 happens to order them, other filesystems need not).
 * Answers the folders it synced (none when `dir` was there).
 */
export async function makeDirectoryDurably(dir: string): Promise<string[]> {
  const first = await mkdir(dir, { recursive: true, mode: 0o700 });
  if (first === undefined) return [];
  const synced: string[] = [];
  const last = path.dirname(first);
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    await syncDirectory(d);
    synced.push(d);
    if (d === last || d === path.dirname(d)) break;
  }
  return synced;
}
