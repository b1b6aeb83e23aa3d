import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { validation } from '@githost/errors';
import type { Logger } from '@githost/logging';
import { createFileDurably, DirectorySync } from './durable-file.js';
import type { EventEnvelope } from './event-bus.js';

/** An append written but not yet part of the journal (FileJournal.stageMany). */
export interface StagedAppend {
  /** Makes the events part of the journal, durably. */
  commit(): Promise<void>;
  /** Removes the written file; the events never joined the journal. */
  discard(): Promise<void>;
}

const ENTRY = /^(\d{16})-(.+)\.json$/;
const BATCH = /^(\d{16})\.batch\.json$/;
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * A durable journal of events for a producer without a database (git-storage, CONTRACT §1). Each
 * append is one file, so directory order is append order: `<16-digit sequence>-<event id>.json`
 * holds one event, `<16-digit sequence>.batch.json` an array of the events appended together
 * (a push of many refs costs one file and one fsync, not one per ref).
 *
 * An append is durable before it resolves: the file is written under a temp name, fsynced,
 * renamed into place (atomic: a reader sees all of it or nothing) and the directory fsynced (so the
 * rename survives a power cut). A crash mid-append leaves only a `.tmp-*` file, which is ignored
 * and cleaned up on the next start. The sequence is microseconds since the epoch, kept strictly
 * increasing across restarts by starting above the largest one already on disk. Removing some of
 * a batch's events rewrites the batch with the rest the same way.
 */
export class FileJournal {
  private lastSeq = 0;
  private ready: Promise<void> | null = null;
  /** Event ids in each batch file this process has written or read (file contents never change
   *  under a name except through this class, so the ids stay true). */
  private readonly batchIds = new Map<string, string[]>();
  private readonly directory: DirectorySync;

  constructor(
    readonly dir: string,
    private readonly logger?: Logger,
  ) {
    this.directory = new DirectorySync(dir);
  }

  async append(event: EventEnvelope): Promise<void> {
    await this.appendMany([event]);
  }

  /** Appends several events durably with one file and one fsync; they stay in this order. */
  async appendMany(events: EventEnvelope[]): Promise<void> {
    await (await this.stageMany(events)).commit();
  }

  /**
   * appendMany in two steps: the file is written and fsynced under its temp name now, and joins
   * the journal (rename, directory fsync) only at `commit`, so a caller can write it while it waits
   * for something the events must not be seen before. Not committed, it is not part of the journal
   * (`discard` removes it; a crash leaves a `.tmp-*` file, cleaned up on the next start).
   */
  async stageMany(events: EventEnvelope[]): Promise<StagedAppend> {
    for (const e of events) checkId(e.id);
    if (events.length === 0) return { commit: async () => undefined, discard: async () => undefined };
    await this.init();
    const seq = Math.max(Date.now() * 1000, this.lastSeq + 1);
    this.lastSeq = seq;
    const prefix = String(seq).padStart(16, '0');
    const name = events.length === 1 ? `${prefix}-${events[0]!.id}.json` : `${prefix}.batch.json`;
    const tmp = await this.writeTemp(name, JSON.stringify(events.length === 1 ? events[0] : events));
    return {
      commit: async () => {
        if (events.length > 1) this.batchIds.set(name, events.map((e) => e.id));
        await rename(tmp, path.join(this.dir, name));
        await this.directory.sync();
      },
      discard: () => unlink(tmp).catch(ignoreMissing),
    };
  }

  /** Events not yet removed, oldest first: whole files until at least `limit` events. */
  async pending(limit = Infinity): Promise<EventEnvelope[]> {
    await this.init();
    const events: EventEnvelope[] = [];
    for (const name of await this.entries()) {
      if (events.length >= limit) break;
      events.push(...((await this.read(name)) ?? []));
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
    if (ids.length === 0) return;
    const wanted = new Set(ids);
    let changed = false;
    for (const name of await this.entries()) {
      const single = ENTRY.exec(name)?.[2];
      if (single !== undefined) {
        if (!wanted.has(single)) continue;
        await unlink(path.join(this.dir, name)).catch(ignoreMissing);
        changed = true;
        continue;
      }
      const inFile = await this.idsOf(name);
      if (!inFile.some((id) => wanted.has(id))) continue;
      changed = true;
      if (inFile.every((id) => wanted.has(id))) {
        await unlink(path.join(this.dir, name)).catch(ignoreMissing);
        this.batchIds.delete(name);
        continue;
      }
      // Part of a batch went out: the rest is written back under the same name (same place in order).
      const rest = ((await this.read(name)) ?? []).filter((e) => !wanted.has(e.id));
      this.batchIds.set(name, rest.map((e) => e.id));
      await this.writeDurably(name, JSON.stringify(rest), false);
    }
    if (changed) await this.directory.sync();
  }

  /** Number of pending events. */
  async size(): Promise<number> {
    await this.init();
    let n = 0;
    for (const name of await this.entries()) n += BATCH.test(name) ? (await this.idsOf(name)).length : 1;
    return n;
  }

  private async entries(): Promise<string[]> {
    return (await readdir(this.dir)).filter((name) => ENTRY.test(name) || BATCH.test(name)).sort();
  }

  /** A file's events; null when it is gone or unreadable (then set aside, not lost). */
  private async read(name: string): Promise<EventEnvelope[] | null> {
    let text: string;
    try {
      text = await readFile(path.join(this.dir, name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null; // removed meanwhile
      throw err;
    }
    try {
      const value = JSON.parse(text) as EventEnvelope | EventEnvelope[];
      if (!BATCH.test(name)) return [value as EventEnvelope];
      if (!Array.isArray(value)) throw new Error('batch file does not hold an array');
      this.batchIds.set(name, value.map((e) => e.id));
      return value;
    } catch (err) {
      // Cannot happen through append() (rename is atomic); a hand-edited file is set aside, not lost.
      this.logger?.error({ err, file: name }, 'unreadable journal entry set aside');
      await rename(path.join(this.dir, name), path.join(this.dir, `${name}.corrupt`));
      this.batchIds.delete(name);
      return null;
    }
  }

  private async idsOf(batch: string): Promise<string[]> {
    return this.batchIds.get(batch) ?? ((await this.read(batch)) ?? []).map((e) => e.id);
  }

  /** Temp file, fsync, rename into place; the directory fsync can be left to the caller. */
  private async writeDurably(name: string, content: string, thenSyncDir = true): Promise<void> {
    await rename(await this.writeTemp(name, content), path.join(this.dir, name));
    if (thenSyncDir) await this.directory.sync();
  }

  /** `content` fsynced under a temp name for `name`; returns its path. */
  private async writeTemp(name: string, content: string): Promise<string> {
    const tmp = path.join(this.dir, `.tmp-${name}-${randomBytes(6).toString('hex')}`);
    await createFileDurably(tmp, content);
    return tmp;
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      for (const name of await readdir(this.dir)) {
        if (name.startsWith('.tmp-')) await unlink(path.join(this.dir, name)).catch(ignoreMissing);
        const seq = ENTRY.exec(name)?.[1] ?? BATCH.exec(name)?.[1];
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

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}
