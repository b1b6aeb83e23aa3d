import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '../src/index.js';

/** A push-like envelope whose payload carries `n`, so tests can check order and content. */
export function makeEvent(n: number, kind = 'push', requestId = `req-${n}`): EventEnvelope<{ n: number; ref: string }> {
  return {
    id: randomUUID(),
    kind,
    occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    repository: { id: randomUUID(), owner: 'alice', name: 'demo' },
    payload: { n, ref: 'refs/heads/main' },
    request_id: requestId,
  };
}

/** Resolves once `check()` is true (polling), or fails with `what` after `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
