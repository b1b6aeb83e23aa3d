import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { validation } from '@githost/errors';
import type { Logger } from '@githost/logging';
import { LoopBudget } from '@githost/runtime';
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
 * Events in one journal file at most. A push of 10,000 refs is 10,000 events of ~3 KB each (20
 * commits apiece): as one file, writing it and reading it back were one `JSON.stringify` and one
 * `JSON.parse` of 30 MB, each holding the event loop for seconds. Files of 250 events cost tens
 * of milliseconds each, with the loop given back in between (docs/decisions/many-refs-push.md#yielding).
 */
export const DEFAULT_EVENTS_PER_FILE = 250;

export interface FileJournalOptions {
  logger?: Logger;
  /** Events in one file at most (DEFAULT_EVENTS_PER_FILE). */
  eventsPerFile?: number;
}

/**
 * A durable journal of events for a producer without a database (git-storage, CONTRACT §1). Each
 * append is one file, so directory order is append order: `<16-digit sequence>-<event id>.json`
 * holds one event, `<16-digit sequence>.batch.json` an array of the events appended together
 * (a push of many refs costs one file and one fsync per DEFAULT_EVENTS_PER_FILE events, not one
 * per ref).
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
  private readonly logger?: Logger;
  private readonly eventsPerFile: number;

  constructor(
    readonly dir: string,
    opts: FileJournalOptions = {},
  ) {
    this.directory = new DirectorySync(dir);
    this.logger = opts.logger;
    this.eventsPerFile = Math.max(1, opts.eventsPerFile ?? DEFAULT_EVENTS_PER_FILE);
  }

  async append(event: EventEnvelope): Promise<void> {
    await this.appendMany([event]);
  }

  /** Appends several events durably, one file and one fsync per `eventsPerFile` of them; they stay in this order. */
  async appendMany(events: EventEnvelope[]): Promise<void> {
    await (await this.stageMany(events)).commit();
  }

  /**
   * appendMany in two steps: the files are written and fsynced under their temp names now, and
   * join the journal (renames, one directory fsync) only at `commit`, so a caller can write them
   * while it waits for something the events must not be seen before. Not committed, they are not
   * part of the journal (`discard` removes them; a crash leaves `.tmp-*` files, cleaned up on the
   * next start). More than `eventsPerFile` events take several files, in order: a crash during
   * `commit` may leave the first of them in the journal without the rest, which the caller's
   * write-ahead record covers by appending them all again under the same ids (at-least-once).
   */
  async stageMany(events: EventEnvelope[]): Promise<StagedAppend> {
    for (const e of events) checkId(e.id);
    if (events.length === 0) return { commit: async () => undefined, discard: async () => undefined };
    await this.init();
    // Each file is written and fsynced while the next is turned into JSON (the writes run on
    // libuv's threads), so many files cost about one file's wait.
    const writes: Array<Promise<{ name: string; tmp: string; ids: string[] }>> = [];
    const budget = new LoopBudget();
    for (let at = 0; at < events.length; at += this.eventsPerFile) {
      const part = events.slice(at, at + this.eventsPerFile);
      const seq = Math.max(Date.now() * 1000, this.lastSeq + 1);
      this.lastSeq = seq;
      const prefix = String(seq).padStart(16, '0');
      const name = part.length === 1 ? `${prefix}-${part[0]!.id}.json` : `${prefix}.batch.json`;
      const content = part.length === 1 ? JSON.stringify(part[0]) : await batchJson(part, budget);
      writes.push(this.writeTemp(name, content).then((tmp) => ({ name, tmp, ids: part.map((e) => e.id) })));
      await budget.pauseIfSpent();
    }
    const written = await Promise.allSettled(writes);
    const files = written.flatMap((w) => (w.status === 'fulfilled' ? [w.value] : []));
    const failed = written.find((w): w is PromiseRejectedResult => w.status === 'rejected');
    if (failed) {
      await Promise.all(files.map((f) => unlink(f.tmp).catch(ignoreMissing)));
      throw failed.reason;
    }
    return {
      commit: async () => {
        for (const f of files) {
          if (f.ids.length > 1) this.batchIds.set(f.name, f.ids);
          await rename(f.tmp, path.join(this.dir, f.name));
        }
        await this.directory.sync();
      },
      discard: async () => {
        await Promise.all(files.map((f) => unlink(f.tmp).catch(ignoreMissing)));
      },
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

/**
 * `JSON.stringify(events)`, the same text, an event at a time with the loop given back when
 * `budget` is spent: a file of 250 push events, each with its 20 commits, is a megabyte of JSON
 * (docs/decisions/many-refs-push.md#yielding).
 */
export async function batchJson(events: readonly EventEnvelope[], budget: LoopBudget): Promise<string> {
  const parts = new Array<string>(events.length);
  for (let i = 0; i < events.length; i++) {
    parts[i] = JSON.stringify(events[i]);
    await budget.pauseIfSpent();
  }
  return `[${parts.join(',')}]`;
}

function checkId(id: string): void {
  // The id becomes part of a file name: nothing that could be a path.
  if (typeof id !== 'string' || !SAFE_ID.test(id)) throw validation(`Invalid event id: ${String(id).slice(0, 64)}`);
}

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}
