import v8 from 'node:v8';

/**
 * One full garbage collection once the service has run no command for a moment
 * (docs/decisions/ssh-server.md#memory). A transfer's packet buffers that lived long enough to
 * reach V8's old generation stay allocated until a full collection, which an idle process may not
 * run for minutes: each of them is its own mapping (MALLOC_MMAP_THRESHOLD_), so the collection
 * gives their pages back at once. Nothing runs while any command runs, nor more than once per idle
 * spell, so a busy server pays nothing and an idle one pays one collection of a small heap.
 * The collection compacts V8's old generation: each connection's objects leave its pages mostly
 * free but not empty, and a collection that does not move objects gives back only empty pages.
 */
export interface IdleCollection {
  /** A command began: a pending collection is called off. */
  started(): void;
  /** A command ended: the last one arms the collection `delayMs` later. */
  ended(): void;
  /** Stops any pending collection (shutdown). */
  stop(): void;
}

export function createIdleCollection(collect: (() => void) | undefined, delayMs: number): IdleCollection {
  let running = 0;
  let timer: NodeJS.Timeout | undefined;
  const cancel = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  return {
    started() {
      running++;
      cancel();
    },
    ended() {
      running = Math.max(0, running - 1);
      if (running > 0 || !collect) return;
      cancel();
      timer = setTimeout(() => {
        timer = undefined;
        if (running === 0) collect();
      }, delayMs);
      timer.unref();
    },
    stop: cancel,
  };
}

/**
 * V8's full collection when the process was started with `--expose-gc` (the launcher's and the
 * container's flags for the ssh process), compacting; undefined otherwise, and then nothing is
 * collected early.
 */
export function exposedCollector(): (() => void) | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  return typeof gc === 'function' ? () => compacting(gc) : undefined;
}

/**
 * Runs `gc` with every old-generation page an evacuation candidate, and only it: `gc()` (V8 11's
 * gc extension) is a full collection without the memory-reducing mode, which moves objects only off
 * pages V8 judges fragmented enough, so pages left mostly free by connections that came and went
 * stay resident (docs/decisions/ssh-server.md#memory). V8 reads the flag when a collection picks its
 * candidates, so it is set for this one synchronous collection and cleared at once: the collections
 * during a transfer keep V8's heuristics.
 */
export function compacting(gc: () => void): void {
  v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    gc();
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
}
