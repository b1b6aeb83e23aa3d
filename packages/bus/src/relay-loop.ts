import type { Logger } from '@githost/logging';

/**
 * What a producer holds after starting a relay (outbox or journal): `kick()` after a commit so
 * the event leaves at once, `backlog()` for readiness/metrics, `stop()` on shutdown.
 */
export interface Relay {
  /** Run a pass now (a pass already running is followed by one more, never run alongside). */
  kick(): void;
  /** Stops polling and waits for the pass in flight. */
  stop(): Promise<void>;
  /** Events written durably but not yet published. */
  backlog(): Promise<number>;
}

/**
 * Runs `pass` on every kick and every `intervalMs`, never two at once. `pass` returns true when it
 * stopped with work left (a full batch), so the loop goes again without waiting for the timer.
 */
export function runRelayLoop(opts: {
  name: string;
  pass: () => Promise<boolean>;
  backlog: () => Promise<number>;
  intervalMs: number;
  logger: Logger;
}): Relay {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const loop = async (): Promise<void> => {
    do {
      again = false;
      try {
        if (await opts.pass()) again = true;
      } catch (err) {
        // A pass fails only when the database or directory itself is unreachable; the timer retries.
        opts.logger.error({ err, relay: opts.name }, 'event relay pass failed');
      }
    } while (again && !stopped);
    running = null;
  };

  const kick = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = loop();
  };

  // unref: a relay alone never keeps a process (or a test run) alive.
  const timer = setInterval(kick, opts.intervalMs);
  timer.unref();
  kick(); // events left over from before a restart go out without waiting for a new one

  return {
    kick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
    backlog: opts.backlog,
  };
}
