import type { ReadContext } from './ports.js';
import type { RawRef } from './refs.js';

type ListRefs = (ctx: ReadContext, prefixes: readonly string[]) => Promise<RawRef[]>;

interface Waiter {
  ctx: ReadContext;
  prefixes: readonly string[];
  resolve(refs: RawRef[]): void;
  reject(err: unknown): void;
}

interface RepoState {
  /** Callers queued for the call that starts when the one in flight ends. */
  next: Waiter[];
}

/**
 * Ref reads of one repository shared between concurrent requests without ever answering from a
 * read that began before the request did: while a ListRefs call is in flight, newcomers queue for
 * the NEXT call, started once it ends. Every answer therefore reflects each ref update that had
 * returned before its request arrived (read-your-writes), while under load one call serves every
 * request that arrived during the previous one. The queued call asks for the union of the queued
 * prefixes; each caller gets only the refs under its own.
 */
export class FreshRefs {
  private readonly repos = new Map<string, RepoState>();

  constructor(private readonly listRefs: ListRefs) {}

  list(ctx: ReadContext, prefixes: readonly string[]): Promise<RawRef[]> {
    const key = `${ctx.shard}\0${ctx.repoId}`;
    const state = this.repos.get(key);
    if (state) {
      return new Promise((resolve, reject) => state.next.push({ ctx, prefixes, resolve, reject }));
    }
    const started: RepoState = { next: [] };
    this.repos.set(key, started);
    const first = this.read(ctx, prefixes);
    void first.then(
      () => this.startNext(key, started),
      () => this.startNext(key, started),
    );
    return first;
  }

  /** The call just ended: serve everyone who queued during it with a call starting now. */
  private startNext(key: string, state: RepoState): void {
    const waiters = state.next;
    if (waiters.length === 0) {
      this.repos.delete(key);
      return;
    }
    state.next = [];
    const union = [...new Set(waiters.flatMap((w) => w.prefixes))].sort();
    // The first to queue names the call (its request id is the one logged downstream).
    const call = this.read(waiters[0]!.ctx, union);
    call.then(
      (refs) => {
        // One answer per distinct set of prefixes, shared by the callers asking for it (the same
        // array: a caller may keep what it derives from it by identity, ref-snapshots.ts).
        const answers = new Map<string, RawRef[]>();
        for (const w of waiters) {
          const wanted = [...new Set(w.prefixes)].sort();
          const key = wanted.join('\0');
          let answer = answers.get(key);
          if (!answer) {
            answer = wanted.length === union.length ? refs : refs.filter((r) => wanted.some((p) => r.name.startsWith(p)));
            answers.set(key, answer);
          }
          w.resolve(answer);
        }
      },
      (err: unknown) => {
        for (const w of waiters) w.reject(err);
      },
    );
    void call.then(
      () => this.startNext(key, state),
      () => this.startNext(key, state),
    );
  }

  /** A reader that throws instead of rejecting must not leave the repository's queue stuck. */
  private read(ctx: ReadContext, prefixes: readonly string[]): Promise<RawRef[]> {
    try {
      return this.listRefs(ctx, prefixes);
    } catch (err) {
      return Promise.reject(err);
    }
  }
}
