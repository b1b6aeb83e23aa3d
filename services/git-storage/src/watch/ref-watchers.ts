import { grpc } from '@githost/grpc';
import type { Logger } from '@githost/logging';
import type { storage } from '@githost/protos';

type WatchCall = grpc.ServerDuplexStream<storage.WatchRefsRequest__Output, storage.RefsChanged>;

interface Watcher {
  call: WatchCall;
  seq: number;
  /** Changes sent and not yet acked, by seq. */
  pending: Map<number, () => void>;
  closed: boolean;
}

export interface RefWatchersOptions {
  /** How long a change waits for a watcher's ack before that watcher is cut off. */
  ackTimeoutMs?: number;
  /** How often every watcher hears a heartbeat, so a watcher on a dead connection notices. */
  heartbeatMs?: number;
  logger?: Logger;
}

export const DEFAULT_ACK_TIMEOUT_MS = 1000;
export const DEFAULT_HEARTBEAT_MS = 1000;

/**
 * Readers that cache ref lists (browse, the gateway) watch here. A ref change is acknowledged
 * to whoever made it only after every watcher acked it, so no reader answers from refs older
 * than a write its client saw complete. A watcher that does not ack in time is cut off: its
 * stream fails, which tells it to stop using its caches until it has reconnected.
 */
export class RefWatchers {
  private readonly watchers = new Set<Watcher>();
  private readonly ackTimeoutMs: number;
  private heartbeat?: NodeJS.Timeout;

  constructor(private readonly opts: RefWatchersOptions = {}) {
    this.ackTimeoutMs = opts.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS;
  }

  get size(): number {
    return this.watchers.size;
  }

  /** The WatchRefs handler. */
  readonly handler: grpc.handleBidiStreamingCall<storage.WatchRefsRequest__Output, storage.RefsChanged> = (call) => {
    const w: Watcher = { call, seq: 0, pending: new Map(), closed: false };
    this.watchers.add(w);
    // Started with the first watcher, stopped by drop() when the last is gone.
    this.heartbeat ??= setInterval(() => this.beat(), this.opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS).unref();
    call.on('data', (msg: storage.WatchRefsRequest__Output) => {
      const ack = w.pending.get(msg.ack_seq);
      if (!ack) return;
      w.pending.delete(msg.ack_seq);
      ack();
    });
    const gone = (): void => this.drop(w);
    call.on('end', () => {
      gone();
      if (!call.cancelled) call.end();
    });
    call.on('cancelled', gone);
    call.on('error', gone);
    call.on('close', gone);
    // Registered before `ready` goes out, so the watcher misses no change after it.
    call.write({ ready: true, seq: 0, repository_id: '', relays_facts: true });
  };

  /**
   * Tells every watcher that `repositoryId`'s refs changed (`facts`: its facts other than its refs,
   * AnnounceChange; `refs`: every ref the change touched, with its new value); resolves when all
   * acked or were cut off. Never throws.
   */
  async notify(repositoryId: string, change: { facts?: boolean; refs?: storage.Ref[] } = {}): Promise<void> {
    if (this.watchers.size === 0) return;
    const message: storage.RefsChanged = { ready: false, repository_id: repositoryId, facts: change.facts === true, refs_known: change.refs !== undefined, refs: change.refs ?? [] };
    await Promise.all([...this.watchers].map((w) => this.send(w, message)));
  }

  /** Ends every watch (server shutdown): watchers stop using their caches. */
  close(): void {
    for (const w of [...this.watchers]) this.cut(w, grpc.status.UNAVAILABLE, 'git-storage is shutting down');
  }

  private beat(): void {
    for (const w of this.watchers) {
      try {
        w.call.write({ heartbeat: true });
      } catch {
        this.drop(w);
      }
    }
  }

  private send(w: Watcher, message: storage.RefsChanged): Promise<void> {
    const repositoryId = message.repository_id;
    return new Promise((resolve) => {
      const seq = ++w.seq;
      const timer = setTimeout(() => {
        if (!w.pending.delete(seq)) return;
        this.opts.logger?.warn({ repository_id: repositoryId, ack_timeout_ms: this.ackTimeoutMs }, 'refs watch: a watcher did not ack a change in time; cutting it off');
        this.cut(w, grpc.status.DEADLINE_EXCEEDED, 'ref change not acknowledged in time');
        resolve();
      }, this.ackTimeoutMs);
      w.pending.set(seq, () => {
        clearTimeout(timer);
        resolve();
      });
      try {
        w.call.write({ ...message, seq });
      } catch {
        this.drop(w);
      }
    });
  }

  /** Ends the watcher's stream with an error status, so its client knows its caches are off. */
  private cut(w: Watcher, code: grpc.status, details: string): void {
    if (w.closed) return;
    this.drop(w);
    if (!w.call.cancelled) w.call.emit('error', Object.assign(new Error(details), { code, details }));
  }

  /** Forgets a watcher; its pending changes need no ack any more (it cannot answer from a cache it no longer trusts). */
  private drop(w: Watcher): void {
    if (w.closed) return;
    w.closed = true;
    this.watchers.delete(w);
    // Nobody left to hear it: stop the heartbeat (the next watcher starts it again).
    if (this.watchers.size === 0) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
    for (const ack of w.pending.values()) ack();
    w.pending.clear();
  }
}
