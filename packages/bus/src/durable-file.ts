import { fsync, open as openFd } from 'node:fs';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';

const openDescriptor = promisify(openFd);
const fsyncDescriptor = promisify(fsync);

/**
 * fsyncs of one directory through a descriptor kept open: opening and closing the directory for
 * every fsync would triple the file system calls on paths that wait for them (a ref move, a
 * journaled event). The descriptor lives as long as the process.
 */
export class DirectorySync {
  private fd: Promise<number> | undefined;

  constructor(readonly dir: string) {}

  async sync(): Promise<void> {
    const fd = (this.fd ??= openDescriptor(this.dir, 'r'));
    try {
      await fsyncDescriptor(await fd);
    } catch (err) {
      // Opened again next time (the directory may have been made meanwhile).
      if (this.fd === fd) this.fd = undefined;
      throw err;
    }
  }
}

/**
 * Creates `file` (it must not exist) for the owner alone, with `content` on disk before it
 * resolves; with `directory` (the file's own), its entry too, both fsyncs at once.
 */
export async function createFileDurably(file: string, content: string, directory?: DirectorySync): Promise<void> {
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(content);
    await Promise.all([handle.sync(), directory?.sync()]);
  } finally {
    await handle.close();
  }
}
