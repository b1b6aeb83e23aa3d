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
