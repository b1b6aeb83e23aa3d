import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { createFileDurably, DirectorySync } from '@githost/bus';
import type { Logger } from '@githost/logging';
import { LoopBudget } from '@githost/runtime';
import { runGit } from '../git/command.js';
import { OID_PATTERN, ZERO_OID } from '@githost/git-records/object-id';
import { branchesOfFirstPush, createsBranches, type FirstPushAdoption } from './first-push.js';
import type { PushContext, PushEventRecorder, RefUpdate } from './push-events.js';

/**
 * Write-ahead records of ref changes (services/git-storage/README.md#push-events-survive-a-kill). Before any ref moves,
 * a record file in `DATA_DIR/pending` holds, fsynced, who changes what (`P <old> <new> <ref>`
 * lines: for a push, every command the transport read from the request, or, when it could not
 * read them, written by git's reference-transaction hook in its `prepared` phase; for UpdateRef,
 * by itself); `C` lines confirm, `A` lines drop. Once the events are journaled the record
 * goes. A record left by a kill is settled at start: confirmed lines, and prepared lines whose
 * ref is now at the new value, become events; the rest never happened. Event ids derive from the
 * record, so settling again after a kill between journaling and removal repeats the same ids
 * (the webhooks consumer records one delivery per event id).
 */

/** Env var naming the record file receive-pack's reference-transaction hook appends to. */
export const REF_INTENT_ENV = 'GITHOST_REF_INTENT';

/**
 * Test fault-injection point, never set in production: `<phase> <file>` makes the
 * reference-transaction hook write its pid to `<file>` in that phase (after `prepared` is
 * fsynced, before `committed` is written) and wait while the file exists, so a test can kill
 * the service at that instant.
 */
export const TEST_PAUSE_ENV = 'GITHOST_TEST_PAUSE_REF_TRANSACTION';

interface Header {
  gitDir: string;
  context: PushContext;
}

export interface IntentRecord {
  id: string;
  header?: Header;
  prepared: RefUpdate[];
  committed: RefUpdate[];
  aborted: RefUpdate[];
}

const LINE = new RegExp(`^([PCA]) (${OID_PATTERN}) (${OID_PATTERN}) (refs/\\S.*)$`);
const RECORD = /^([0-9a-f-]{36})\.intent$/;

/** A record file's text: a JSON header line, then `P|C|A <old> <new> <ref>` lines. */
export function parseIntentRecord(id: string, text: string): IntentRecord {
  const [first = '', ...lines] = text.split('\n');
  let header: Header | undefined;
  try {
    const h = JSON.parse(first) as Header;
    if (typeof h?.gitDir === 'string' && typeof h.context?.repository?.id === 'string') header = h;
  } catch {
    // A header cut by a kill while it was written: no ref moved yet (the header is fsynced first).
  }
  const record: IntentRecord = { id, header, prepared: [], committed: [], aborted: [] };
  for (const line of lines) {
    const m = LINE.exec(line);
    if (!m) continue;
    const u = { before: m[2]!, after: m[3]!, ref: m[4]! };
    (m[1] === 'P' ? record.prepared : m[1] === 'C' ? record.committed : record.aborted).push(u);
  }
  return record;
}

/** One update as a key: a record of 10,000 refs is matched by lookups, not by scans of scans. */
const keyOf = (u: RefUpdate) => `${u.before} ${u.after} ${u.ref}`;

/** Prepared updates neither confirmed nor dropped: only the refs on disk can tell what happened. */
export function unsettled(record: IntentRecord): RefUpdate[] {
  const settled = new Set([...record.committed, ...record.aborted].map(keyOf));
  return record.prepared.filter((p) => !settled.has(keyOf(p)));
}

/**
 * The updates that happened, one per ref in the order they were prepared: confirmed ones, and
 * unsettled ones whose ref is now at the new value (`refValue`: the value on disk, ZERO_OID when
 * absent), one per ref.
 */
export function happenedUpdates(record: IntentRecord, refValue: (ref: string) => string): RefUpdate[] {
  const open = unsettled(record);
  // git 2.39 also reports a deletion's packed-refs side, as a zero-to-zero no-op: not a change.
  const happened = [...record.committed, ...open.filter((u) => refValue(u.ref) === u.after)].filter((u) => u.before !== u.after);
  const byRef = new Map<string, RefUpdate>();
  for (const u of happened) if (!byRef.has(u.ref)) byRef.set(u.ref, u);
  const order = new Map<string, number>();
  for (const u of [...record.prepared, ...record.committed]) if (!order.has(u.ref)) order.set(u.ref, order.size);
  return [...byRef.values()].sort((a, b) => order.get(a.ref)! - order.get(b.ref)!);
}

/** A stable event id (UUID-shaped) for one update of one record. */
export function eventIdOf(recordId: string, u: RefUpdate): string {
  const h = createHash('sha256').update(`${recordId}\0${u.ref}\0${u.before}\0${u.after}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export interface RefIntent {
  id: string;
  file: string;
}

export class RefIntents {
  private ready: Promise<void> | null = null;
  private readonly directory: DirectorySync;
  private readonly settling = new Set<Promise<void>>();

  constructor(
    readonly dir: string,
    private readonly recorder: PushEventRecorder,
    private readonly logger: Logger,
    /** accounts' default branch after a first push; absent: left alone (tests of storage alone). */
    private readonly adoption?: FirstPushAdoption,
  ) {
    this.directory = new DirectorySync(dir);
  }

  /** A new record (mode 0600, fsynced with its directory) for changes about to be made. */
  async prepare(gitDir: string, context: PushContext, updates: RefUpdate[] = []): Promise<RefIntent> {
    await this.init();
    const id = randomUUID();
    const file = path.join(this.dir, `${id}.intent`);
    const text = [JSON.stringify({ gitDir, context }), ...updates.map((u) => `P ${u.before} ${u.after} ${u.ref}`)].join('\n') + '\n';
    await createFileDurably(file, text, this.directory);
    return { id, file };
  }

  /** The environment receive-pack's reference-transaction hook needs for this record. */
  hookEnv(intent: RefIntent): Record<string, string> {
    // git gets a clean environment; the fault-injection point passes through only when set.
    const pause = process.env[TEST_PAUSE_ENV];
    return { [REF_INTENT_ENV]: intent.file, ...(pause ? { [TEST_PAUSE_ENV]: pause } : {}) };
  }

  /**
   * Confirms updates that happened and drops ones that did not: made by this process (UpdateRef),
   * or reported by receive-pack for commands the transport recorded (without the hook, which
   * writes its own lines). No fsync: a lost line leaves the update to the refs on disk.
   */
  async confirm(intent: RefIntent, updates: RefUpdate[], dropped: RefUpdate[] = []): Promise<void> {
    const lines = [...updates.map((u) => `C ${u.before} ${u.after} ${u.ref}\n`), ...dropped.map((u) => `A ${u.before} ${u.after} ${u.ref}\n`)];
    if (lines.length > 0) await appendFile(intent.file, lines.join(''));
  }

  /**
   * A settle running after its caller answered: `settled` waits for it (a stop, a test reading
   * the journal).
   */
  track(settling: Promise<void>): void {
    this.settling.add(settling);
    void settling.finally(() => this.settling.delete(settling));
  }

  /** Every tracked settle has ended. */
  async settled(): Promise<void> {
    while (this.settling.size > 0) await Promise.all([...this.settling]);
  }

  /** Drops a record whose changes did not happen. */
  async drop(intent: RefIntent): Promise<void> {
    await rm(intent.file, { force: true });
  }

  /**
   * Journals the events of what happened, then removes the record. `forced` is taken from
   * `known` when the caller computed it. Throws (leaving the record for the next start) when the
   * journal refused. When the changes were a repository's first branches, accounts is told first
   * (FirstPushAdoption), so the default branch has followed before any consumer hears of the push;
   * when accounts cannot be asked (down, or at start not up yet), the events are journaled all the
   * same and the record stays until a background retry got accounts' answer.
   */
  async settle(intent: RefIntent, known: RefUpdate[] = []): Promise<RefUpdate[]> {
    let text: string;
    try {
      text = await readFile(intent.file, 'utf8');
    } catch {
      return [];
    }
    // Each step below is linear in the record, but a record of 10,000 refs makes each a few tens
    // of milliseconds on the one event loop: the loop is given back between them when the budget
    // is spent (docs/decisions/many-refs-push.md#yielding).
    const budget = new LoopBudget();
    const record = parseIntentRecord(intent.id, text);
    await budget.pauseIfSpent();
    if (!record.header || !existsSync(record.header.gitDir)) {
      await rm(intent.file, { force: true });
      return [];
    }
    const { gitDir, context } = record.header;
    const refs = unsettled(record).length > 0 ? await refValues(gitDir) : new Map<string, string>();
    await budget.pauseIfSpent();
    const forcedOf = new Map(known.map((k) => [keyOf(k), k.forced]));
    const updates = happenedUpdates(record, (ref) => refs.get(ref) ?? ZERO_OID).map((u) => ({ ...u, forced: forcedOf.get(keyOf(u)) }));
    await budget.pauseIfSpent();
    const adoption = this.adoption;
    const first = adoption && createsBranches(updates) ? branchesOfFirstPush(updates, branchRefs(refs.size > 0 ? refs : await refValues(gitDir))) : [];
    await budget.pauseIfSpent();
    const adopted = first.length === 0 || (await adoption!.tryOnce(context.repository.id, first, context.requestId));
    if (updates.length > 0) await this.recorder.record(gitDir, context, updates, (u) => eventIdOf(record.id, u));
    if (adopted) await rm(intent.file, { force: true });
    else adoption!.retry(context.repository.id, first, () => rm(intent.file, { force: true }));
    return updates;
  }

  /**
   * `settle` for a record whose only changes this process made and confirmed (UpdateRef): what
   * happened is `updates`, so the record is not read back. `refsBefore` as the recorder takes it.
   * In two steps: the events are built and written now, while the caller waits for something
   * else (the watchers' acks); `settle` journals them, then removes the record. Until then nothing
   * is journaled, and a kill leaves the record to the next start.
   */
  async stageConfirmed(
    intent: RefIntent,
    gitDir: string,
    context: PushContext,
    updates: RefUpdate[],
    refsBefore?: ReadonlySet<string>,
  ): Promise<{ settle(): Promise<void>; discard(): Promise<void> }> {
    const happened = updates.filter((u) => u.before !== u.after);
    const staged = happened.length > 0 && existsSync(gitDir) ? await this.recorder.stage(gitDir, context, happened, (u) => eventIdOf(intent.id, u), refsBefore) : undefined;
    return {
      settle: async () => {
        await staged?.commit();
        await rm(intent.file, { force: true });
      },
      // The record stays: the next start journals what it holds.
      discard: async () => staged?.discard(),
    };
  }

  /** At start, before serving: settles every record a killed process left. */
  async reconcile(): Promise<void> {
    await this.init();
    for (const name of await readdir(this.dir)) {
      const m = RECORD.exec(name);
      if (!m) continue;
      const intent = { id: m[1]!, file: path.join(this.dir, name) };
      try {
        const updates = await this.settle(intent);
        this.logger.info({ record: intent.id, refs: updates.map((u) => u.ref) }, 'ref intents: settled a record left by an earlier process');
      } catch (err) {
        this.logger.error({ err, record: intent.id }, 'ref intents: could not settle a record; kept for the next start');
      }
    }
  }

  private init(): Promise<void> {
    this.ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).then(() => undefined);
    return this.ready;
  }
}

/** The branches (full names) among `refs`. */
function branchRefs(refs: ReadonlyMap<string, string>): string[] {
  return [...refs.keys()].filter((ref) => ref.startsWith('refs/heads/'));
}

/** Every ref's value on disk. */
async function refValues(gitDir: string): Promise<Map<string, string>> {
  const { stdout } = await runGit({ name: 'for-each-ref', flags: ['--format=%(objectname) %(refname)'] }, { gitDir });
  const values = new Map<string, string>();
  for (const line of stdout.toString('utf8').split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0) values.set(line.slice(sp + 1), line.slice(0, sp));
  }
  return values;
}
