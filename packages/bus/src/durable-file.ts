import { open } from 'node:fs/promises';

/** Creates `file` (it must not exist) for the owner alone, with `content` on disk before it resolves. */
export async function createFileDurably(file: string, content: string): Promise<void> {
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsync of a directory: a file created, renamed or removed in it survives a crash. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
