import { randomUUID } from 'node:crypto';
import type { EventEnvelope, FileJournal, Relay, StagedAppend } from '@githost/bus';
import type { Logger } from '@githost/logging';
import { LoopBudget } from '@githost/runtime';
import type { CatfilePool } from '../git/catfile-pool.js';
import { runGit } from '../git/command.js';
import { parseCommitObject, type CommitFields } from '@githost/git-records';
import { readCommitObject, readCommitObjects, readCommitObjectsOrNull } from '../git/objects.js';
import { DateOrderQueue } from '../git/log-walk.js';
import { ZERO_OID } from '@githost/git-records/object-id';

export interface RefUpdate {
  ref: string;
  before: string;
  after: string;
  /** Not a fast-forward; computed by the recorder when the caller does not know. */
  forced?: boolean;
}

export interface PushContext {
  repository: { id: string; owner: string; name: string };
  pusher: string;
  requestId?: string;
}

/** CONTRACT §7 + §9 `push` payload. */
export interface PushPayload {
  event: 'push';
  ref: string;
  before: string;
  after: string;
  created: boolean;
  deleted: boolean;
  /** A non-fast-forward update of an existing ref (false for creations and deletions), as GitHub sends it. */
  forced: boolean;
  repository: { owner: string; name: string; full_name: string };
  sender: { username: string };
  commits: Array<{ id: string; message: string; author: { name: string; email: string }; timestamp: string }>;
}

/** CONTRACT §9 `repository_deleted` payload. */
export interface RepositoryDeletedPayload {
  event: 'repository_deleted';
  repository: { owner: string; name: string; full_name: string };
  sender: { username: string };
}

const MAX_COMMITS = 20;

/** `push` events written, not yet journaled (PushEventRecorder.stage). */
export interface StagedPushEvents extends StagedAppend {
  events: EventEnvelope<PushPayload>[];
}

/**
 * Turns ref updates into `push` events (one per ref, CONTRACT §9) and journals them durably; the
 * relay publishes them afterwards. A repository's events join the journal in the order they were
 * staged, that is the order its refs moved, even when a caller commits them later (UpdateRef
 * journals after its answer, services/git-storage/README.md#push-events-survive-a-kill).
 */
export class PushEventRecorder {
  /** Per repository, the last staged set's way into the journal (committed or discarded). */
  private readonly joining = new Map<string, Promise<void>>();

  constructor(
    private readonly pool: CatfilePool,
    private readonly journal: FileJournal,
    private readonly relay: () => Relay | undefined,
    private readonly logger: Logger,
  ) {}

  /**
   * `idOf`: the event id of an update (a ref intent's, stable across a replay); default random.
   * `refsBefore`: when the caller knows them, the values every ref had before `updates` (the
   * updated refs' old values included), which often answer which commits are new without a walk;
   * or, from `refsBeforeFor`, those of them this question asks about.
   */
  async record(
    gitDir: string,
    ctx: PushContext,
    updates: RefUpdate[],
    idOf: (u: RefUpdate) => string = () => randomUUID(),
    refsBefore?: ReadonlySet<string>,
  ): Promise<EventEnvelope<PushPayload>[]> {
    const staged = await this.stage(gitDir, ctx, updates, idOf, refsBefore);
    await staged.commit();
    return staged.events;
  }

  /**
   * `record` up to the journal: the events are built and written (fsynced) but join the journal
   * only at `commit` (FileJournal.stageMany), which also wakes the relay.
   */
  async stage(
    gitDir: string,
    ctx: PushContext,
    updates: RefUpdate[],
    idOf: (u: RefUpdate) => string = () => randomUUID(),
    refsBefore?: ReadonlySet<string>,
  ): Promise<StagedPushEvents> {
    if (updates.length === 0) return { events: [], commit: async () => undefined, discard: async () => undefined };
    const excluded = await exclusionBefore(gitDir, updates);
    const tips = [...new Set(updates.map((u) => u.after).filter((oid) => oid !== ZERO_OID))];
    // Refs sharing a tip share their commits; and when no tip brings anything new (refs created
    // on existing commits, as in a push of many branches), one rev-list answers for all of them.
    const commitsOf = new Map<string, PushPayload['commits']>();
    if (refsBefore) for (const tip of tips) await this.newCommitsWithoutWalk(gitDir, tip, refsBefore).then((c) => c && commitsOf.set(tip, c));
    const unknown = tips.filter((tip) => !commitsOf.has(tip));
    if (unknown.length > 1 && !(await this.anyNew(gitDir, unknown, excluded))) for (const tip of unknown) commitsOf.set(tip, []);
    const walk = unknown.filter((tip) => !commitsOf.has(tip));
    if (walk.length > PER_TIP_WALKS) for (const [tip, commits] of (await this.newCommitsOfMany(gitDir, walk, excluded)) ?? []) commitsOf.set(tip, commits);
    for (const tip of walk) if (!commitsOf.has(tip)) commitsOf.set(tip, await this.newCommits(gitDir, tip, excluded));
    const envelopes: EventEnvelope<PushPayload>[] = [];
    // 10,000 refs are 10,000 envelopes (and their ids' hashes): the event loop is given back
    // between (docs/decisions/many-refs-push.md#yielding).
    const budget = new LoopBudget();
    for (const u of updates) {
      await budget.pauseIfSpent();
      const forced = u.forced ?? (await this.isForced(gitDir, u));
      const commits = u.after === ZERO_OID ? [] : commitsOf.get(u.after)!;
      envelopes.push({
        id: idOf(u),
        kind: 'push',
        occurred_at: new Date().toISOString(),
        repository: ctx.repository,
        payload: {
          event: 'push',
          ref: u.ref,
          before: u.before,
          after: u.after,
          created: u.before === ZERO_OID,
          deleted: u.after === ZERO_OID,
          forced,
          repository: { owner: ctx.repository.owner, name: ctx.repository.name, full_name: `${ctx.repository.owner}/${ctx.repository.name}` },
          sender: { username: ctx.pusher },
          commits,
        },
        ...(ctx.requestId ? { request_id: ctx.requestId } : {}),
      });
    }
    const staged = await this.journal.stageMany(envelopes);
    const previous = this.joining.get(gitDir);
    let joined!: () => void;
    const mine = new Promise<void>((resolve) => (joined = resolve));
    this.joining.set(gitDir, mine);
    const done = () => {
      joined();
      if (this.joining.get(gitDir) === mine) this.joining.delete(gitDir);
    };
    return {
      events: envelopes,
      commit: async () => {
        try {
          await previous;
          await staged.commit();
        } finally {
          done();
        }
        this.relay()?.kick();
      },
      discard: async () => {
        try {
          await staged.discard();
        } finally {
          done();
        }
      },
    };
  }

  /** The `repository_deleted` event (CONTRACT §9), journaled after the repository is gone. */
  async recordRepositoryDeleted(ctx: PushContext): Promise<EventEnvelope<RepositoryDeletedPayload>> {
    const { owner, name } = ctx.repository;
    const envelope: EventEnvelope<RepositoryDeletedPayload> = {
      id: randomUUID(),
      kind: 'repository_deleted',
      occurred_at: new Date().toISOString(),
      repository: ctx.repository,
      payload: { event: 'repository_deleted', repository: { owner, name, full_name: `${owner}/${name}` }, sender: { username: ctx.pusher } },
      ...(ctx.requestId ? { request_id: ctx.requestId } : {}),
    };
    await this.journal.appendMany([envelope]);
    this.relay()?.kick();
    return envelope;
  }

  /** Runs after the ref moved, so both commits are in the repository. */
  private async isForced(gitDir: string, u: RefUpdate): Promise<boolean> {
    if (u.before === ZERO_OID || u.after === ZERO_OID) return false;
    try {
      const { exitCode } = await runGit({ name: 'merge-base', flags: ['--is-ancestor'], args: [u.before, u.after] }, { gitDir, okExitCodes: [1] });
      return exitCode === 1;
    } catch (err) {
      // A tag moved from or to a tree or blob has no ancestry: not a history rewrite of commits.
      this.logger.warn({ err, ref: u.ref }, 'push event: could not tell whether the update was forced');
      return false;
    }
  }

  /** Whether any of `tips` reaches a commit outside `excluded`; true when git cannot tell (a tip
   *  that is not a commit), so the per-tip walk decides. */
  private async anyNew(gitDir: string, tips: string[], excluded: Exclusion): Promise<boolean> {
    try {
      const { stdout } = await runGit({ name: 'rev-list', flags: [...excluded.flags, '--max-count=1', '--stdin'] }, { gitDir, stdin: revListStdin(tips, excluded) });
      return stdout.length > 0;
    } catch {
      return true;
    }
  }

  /**
   * For a move to `tip`, read before it: of the values `newCommitsWithoutWalk` asks about (the tip
   * and its parents), those a ref holds, through `held` (the refs cache's index). It stands in for
   * every ref's value as `refsBefore` for that move, without a copy of 110,000 values per merge
   * (docs/decisions/many-refs-push.md#the-refs-cache).
   */
  async refsBeforeFor(gitDir: string, tip: string, held: (oids: string[]) => Promise<Set<string>>): Promise<Set<string>> {
    const commit = tip === ZERO_OID ? null : await readCommitObject(this.pool, gitDir, tip).catch(() => null);
    const parents = commit && commit.oid === tip ? parseCommitObject(commit.raw).parents : [];
    return held([tip, ...parents]);
  }

  /**
   * The new commits of `tip` when they follow from the refs before the update alone, as they do
   * for a merge (bench/RESULTS.md "Merge requests"): none when a ref already held `tip` (a
   * fast-forward to the source branch), `tip` alone when each of its parents was a ref's value (a
   * merge commit of the target and the source). What rev-list would list, without starting it;
   * undefined when only a walk can tell.
   */
  private async newCommitsWithoutWalk(gitDir: string, tip: string, refsBefore: ReadonlySet<string>): Promise<PushPayload['commits'] | undefined> {
    if (refsBefore.has(tip)) return [];
    const commit = await readCommitObject(this.pool, gitDir, tip).catch(() => null);
    if (!commit || commit.oid !== tip) return undefined; // not a commit (a tag peeled to one): the walk decides
    const c = parseCommitObject(commit.raw);
    if (!c.parents.every((p) => refsBefore.has(p))) return undefined;
    return [payloadCommit(tip, c)];
  }

  /**
   * `newCommits` of many tips with ONE rev-list instead of one each (a push of 10,000 branches
   * started 10,000 gits: docs/decisions/many-refs-push.md): every commit new to the repository
   * with its parents and commit time, then, per tip, the walk rev-list makes (newest commit time
   * first, at most 20) done in memory over those commits alone. Tips that are not commits (tags)
   * are peeled in one cat-file round trip. Undefined when the new history is too large to hold
   * (the per-tip walks decide then).
   */
  private async newCommitsOfMany(gitDir: string, tips: string[], excluded: Exclusion): Promise<Map<string, PushPayload['commits']> | undefined> {
    let stdout: Buffer;
    try {
      ({ stdout } = await runGit({ name: 'rev-list', flags: [...excluded.flags, '--timestamp', '--parents', '--stdin'] }, { gitDir, stdin: revListStdin(tips, excluded), maxStdoutBytes: MAX_NEW_HISTORY_BYTES }));
    } catch (err) {
      this.logger.warn({ err, tips: tips.length }, 'push event: could not list the new commits of many refs at once');
      return undefined;
    }
    const budget = new LoopBudget();
    const graph = await parseTimedParents(stdout, budget);
    const peeled = new Map<string, string | null>();
    const notListed = tips.filter((t) => !graph.has(t));
    if (notListed.length > 0) {
      const objs = await readCommitObjectsOrNull(this.pool, gitDir, notListed);
      notListed.forEach((t, i) => peeled.set(t, objs[i]?.oid ?? null));
    }
    const chosen = new Map<string, string[]>();
    const wanted = new Set<string>();
    for (const tip of tips) {
      const start = peeled.has(tip) ? peeled.get(tip) : tip;
      const oids = start && graph.has(start) ? newestFirst(graph, start, MAX_COMMITS).reverse() : [];
      chosen.set(tip, oids);
      for (const oid of oids) wanted.add(oid);
      await budget.pauseIfSpent();
    }
    const parsed = new Map<string, PushPayload['commits'][number]>();
    for (const { oid, raw } of await readCommitObjects(this.pool, gitDir, [...wanted])) {
      parsed.set(oid, payloadCommit(oid, parseCommitObject(raw)));
      await budget.pauseIfSpent();
    }
    const commitsOf = new Map<string, PushPayload['commits']>();
    for (const [tip, oids] of chosen) {
      commitsOf.set(tip, oids.map((o) => parsed.get(o)!));
      await budget.pauseIfSpent();
    }
    return commitsOf;
  }

  /** CONTRACT §9: the commits new to the repository, the 20 newest, oldest first. */
  private async newCommits(gitDir: string, tip: string, excluded: Exclusion): Promise<PushPayload['commits']> {
    let oids: string[];
    try {
      const { stdout } = await runGit({ name: 'rev-list', flags: [...excluded.flags, `--max-count=${MAX_COMMITS}`, '--stdin'] }, { gitDir, stdin: revListStdin([tip], excluded) });
      oids = stdout.toString('utf8').split('\n').filter(Boolean).reverse();
    } catch (err) {
      // A tag pointing at a tree or blob has no commits; the event still goes out.
      this.logger.warn({ err, tip }, 'push event: could not list new commits');
      return [];
    }
    const raws = await readCommitObjects(this.pool, gitDir, oids);
    return raws.map(({ oid, raw }) => payloadCommit(oid, parseCommitObject(raw)));
  }
}

/** More tips than this go through one rev-list for all (newCommitsOfMany). */
const PER_TIP_WALKS = 8;
/** The new history newCommitsOfMany holds at most (~600,000 commits); beyond, per-tip walks. */
const MAX_NEW_HISTORY_BYTES = 64 * 1024 * 1024;

interface TimedCommit {
  time: number;
  parents: string[];
}

/** `rev-list --timestamp --parents` lines: `<time> <oid> <parent>...`. */
async function parseTimedParents(stdout: Buffer, budget: LoopBudget): Promise<Map<string, TimedCommit>> {
  const graph = new Map<string, TimedCommit>();
  for (const line of stdout.toString('latin1').split('\n')) {
    if (!line) continue;
    const [time, oid, ...parents] = line.split(' ');
    graph.set(oid!, { time: Number(time), parents });
    await budget.pauseIfSpent();
  }
  return graph;
}

/**
 * The first `limit` commits rev-list lists from `tip` within `graph` (the new commits; a parent
 * outside it is reachable from the excluded refs): commit time descending, the earlier found first
 * on a tie, as git's date-ordered walk (DateOrderQueue).
 */
export function newestFirst(graph: ReadonlyMap<string, TimedCommit>, tip: string, limit: number): string[] {
  const out: string[] = [];
  const queue = new DateOrderQueue();
  queue.add(tip, graph.get(tip)!.time);
  for (let oid = queue.next(); oid !== undefined && out.length < limit; oid = queue.next()) {
    out.push(oid);
    for (const p of graph.get(oid)!.parents) {
      const c = graph.get(p);
      if (c) queue.add(p, c.time);
    }
  }
  return out;
}

/** What rev-list leaves out so that only commits new to the repository remain: the refs as they
 *  were before `updates`, as rev-list flags and `^` lines for its stdin. */
interface Exclusion {
  flags: string[];
  negatives: string[];
}

/** rev-list's stdin for the commits of `tips` new to the repository: the tips, then `^` lines. */
function revListStdin(tips: readonly string[], excluded: Exclusion): string {
  return `${tips.join('\n')}\n${excluded.negatives.map((o) => `^${o}`).join('\n')}\n`;
}

/** A commit as a push event carries it (CONTRACT §9). */
function payloadCommit(oid: string, c: CommitFields): PushPayload['commits'][number] {
  return { id: oid, message: c.message, author: { name: c.author.name, email: c.author.email }, timestamp: c.author.date };
}

/** Updated refs named to rev-list's `--exclude` at most; more go through one for-each-ref. */
const EXCLUDES_IN_ARGV = 64;

/**
 * Every ref value as it was before `updates` (read after them, with their old values put back).
 * For a few updated refs (an UpdateRef, most pushes) rev-list reads the refs itself: `--all`
 * without the updated refs and without HEAD (which may point at one of them), plus their old
 * values; ref names cannot hold glob characters, so each `--exclude` names exactly its ref. That is
 * one git instead of two on every merge (bench/RESULTS.md "Merge requests"). Many updated refs go
 * through stdin instead, where a repository's refs always fit.
 */
async function exclusionBefore(gitDir: string, updates: RefUpdate[]): Promise<Exclusion> {
  const olds = [...new Set(updates.filter((u) => u.before !== ZERO_OID).map((u) => u.before))];
  if (updates.length <= EXCLUDES_IN_ARGV) {
    return { flags: [...updates.map((u) => `--exclude=${u.ref}`), '--exclude=HEAD', '--not', '--all', '--not'], negatives: olds };
  }
  return { flags: [], negatives: await refsBefore(gitDir, updates) };
}

/** Every ref value as it was before `updates` (read after them, with their old values put back). */
async function refsBefore(gitDir: string, updates: RefUpdate[]): Promise<string[]> {
  const { stdout } = await runGit({ name: 'for-each-ref', flags: ['--format=%(objectname) %(refname)'] }, { gitDir });
  const changed = new Set(updates.map((u) => u.ref));
  const values = new Set<string>();
  for (const line of stdout.toString('utf8').split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0 && !changed.has(line.slice(sp + 1))) values.add(line.slice(0, sp));
  }
  for (const u of updates) if (u.before !== ZERO_OID) values.add(u.before);
  return [...values];
}
