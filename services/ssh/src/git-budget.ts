import type { SshCaller } from './commands/index.js';

const WINDOW_MS = 60_000;

/**
 * The per-caller git budget (docs/operating.md#rate-limits-gateway): SSH git commands per minute
 * per user (or deploy key), with the number the gateway's per-token git budget takes
 * (GITHOST_GIT_RATE_LIMIT_PER_MINUTE), counted in this process in fixed one-minute windows as the
 * gateway's memory store counts them. 0 turns it off.
 */
export function gitBudget(perMinute: number, now: () => number = Date.now) {
  const windows = new Map<string, { start: number; hits: number }>();
  return async (caller: SshCaller): Promise<boolean> => {
    if (perMinute <= 0) return true;
    const key = caller.kind === 'user' ? `user:${caller.user?.id}` : `deploy-key:${caller.keyId}`;
    const t = now();
    let w = windows.get(key);
    if (!w || t - w.start >= WINDOW_MS) {
      // Old windows go as new ones start, so the map holds only callers of the last minute.
      for (const [k, old] of windows) if (t - old.start >= WINDOW_MS) windows.delete(k);
      w = { start: t, hits: 0 };
      windows.set(key, w);
    }
    w.hits++;
    return w.hits <= perMinute;
  };
}
