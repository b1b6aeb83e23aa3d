import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { validation } from '@githost/errors';
import type { Logger } from '@githost/logging';
import type { EventEnvelope } from './index.js';

/**
 * A durable journal of events for a producer without a database (git-storage, CONTRACT §1): one
 * file per event, `<16-digit sequence>-<event id>.json`, so directory order is append order.
 *
 * append() is durable before it resolves: the event goes to a temp file that is fsynced, renamed
 * into place (atomic: a reader sees the whole event or none) and the directory fsynced (so the
 * rename survives a power cut). A crash mid-append leaves only a `.tmp-*` file, which is ignored
 * and cleaned up on the next start. The sequence is microseconds since the epoch, kept strictly
 * increasing across restarts by starting above the largest one already on disk.
 */
const ENTRY = /^(\d{16})-(.+)\.json$/;
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export class FileJournal {
  private lastSeq = 0;
  private ready: Promise<void> | null = null;

  constructor(
    readonly dir: string,
    private readonly logger?: Logger,
  ) {}

  async append(event: EventEnvelope): Promise<void> {
    checkId(event.id);
    await this.init();
    const seq = Math.max(Date.now() * 1000, this.lastSeq + 1);
    this.lastSeq = seq;
    const tmp = path.join(this.dir, `.tmp-${seq}-${randomBytes(6).toString('hex')}`);
    const file = await open(tmp, 'wx', 0o600);
    try {
      await file.writeFile(JSON.stringify(event));
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path.join(this.dir, `${String(seq).padStart(16, '0')}-${event.id}.json`));
    await syncDir(this.dir);
  }

  /** Events not yet removed, oldest first (at most `limit`). */
  async pending(limit = Infinity): Promise<EventEnvelope[]> {
    await this.init();
    const events: EventEnvelope[] = [];
    for (const name of await this.entries()) {
      if (events.length >= limit) break;
      let text: string;
      try {
        text = await readFile(path.join(this.dir, name), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed meanwhile
        throw err;
      }
      try {
        events.push(JSON.parse(text) as EventEnvelope);
      } catch (err) {
        // Cannot happen through append() (rename is atomic); a hand-edited file is set aside, not lost.
        this.logger?.error({ err, file: name }, 'unreadable journal entry set aside');
        await rename(path.join(this.dir, name), path.join(this.dir, `${name}.corrupt`));
      }
    }
    return events;
  }

  /** Forgets an event (after it was published); unknown ids are ignored. */
  async remove(id: string): Promise<void> {
    await this.removeMany([id]);
  }

  /** Removes several events with one directory listing and one directory fsync: a relay
   *  draining a backlog would otherwise list the whole journal once per event. */
  async removeMany(ids: string[]): Promise<void> {
    for (const id of ids) checkId(id);
    await this.init();
    const wanted = new Set(ids);
    const names = (await this.entries()).filter((name) => wanted.has(ENTRY.exec(name)?.[2] ?? ''));
    await Promise.all(names.map((name) => unlink(path.join(this.dir, name)).catch(ignoreMissing)));
    if (names.length > 0) await syncDir(this.dir);
  }

  /** Number of pending events. */
  async size(): Promise<number> {
    await this.init();
    return (await this.entries()).length;
  }

  private async entries(): Promise<string[]> {
    return (await readdir(this.dir)).filter((name) => ENTRY.test(name)).sort();
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.dir, { recursive: true });
      for (const name of await readdir(this.dir)) {
        if (name.startsWith('.tmp-')) await unlink(path.join(this.dir, name)).catch(ignoreMissing);
        const seq = ENTRY.exec(name)?.[1];
        if (seq) this.lastSeq = Math.max(this.lastSeq, Number(seq));
      }
    })();
    return this.ready;
  }
}

function checkId(id: string): void {
  // The id becomes part of a file name: nothing that could be a path.
  if (typeof id !== 'string' || !SAFE_ID.test(id)) throw validation(`Invalid event id: ${String(id).slice(0, 64)}`);
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}
