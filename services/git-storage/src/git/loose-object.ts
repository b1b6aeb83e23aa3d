import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, unlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';

const deflateAsync = promisify(deflate);

/**
 * Writes one object into a SHA-1 repository as a loose object, exactly as git's
 * `write_loose_object` does, and returns its id: `<type> <size>\0<content>` hashed, deflated into
 * `objects/xx/tmp_obj_*` (owner read-only, the repository's `core.sharedRepository=0600`), fsynced
 * (`core.fsync` names `objects`), then linked into place. An object already there is only
 * freshened (its mtime), as git does, so housekeeping's cruft expiry counts from now.
 * One git start less per merge commit (bench/RESULTS.md "Merge requests").
 */
export async function writeLooseObject(gitDir: string, type: 'commit', content: Buffer): Promise<string> {
  const whole = Buffer.concat([Buffer.from(`${type} ${content.length}\0`, 'latin1'), content]);
  const oid = createHash('sha1').update(whole).digest('hex');
  const dir = path.join(gitDir, 'objects', oid.slice(0, 2));
  const file = path.join(dir, oid.slice(2));
  if (await freshened(file)) return oid;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  const handle = await open(tmp, 'wx', 0o400);
  try {
    // git writes loose objects at core.looseCompression's default, 1 (best speed).
    await handle.writeFile(await deflateAsync(whole, { level: 1 }));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(tmp, file);
  } catch (err) {
    // Written meanwhile by someone else: the same bytes under the same name.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  return oid;
}

async function freshened(file: string): Promise<boolean> {
  try {
    const now = new Date();
    await utimes(file, now, now);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
