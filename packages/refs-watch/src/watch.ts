import type { grpc } from '@githost/grpc';
import type { Logger } from '@githost/logging';
import type { storage, StorageServiceClient } from '@githost/protos';
import { DEFAULT_SHARD } from '@githost/storage-router';

/** What the watch needs of a storage router: the shard names and a client per shard. */
export interface ShardClients {
  readonly shards: readonly string[];
  client(shard: string): StorageServiceClient;
}

/**
 * A ref change whose every changed ref git-storage named with its new value: a listener holding
 * the repository's refs as of `before` (a `version` token) may update them in place and hold them
 * as of `after`, instead of reading them all again (docs/decisions/many-refs-push.md#the-refs-cache).
 */
export interface RefsMoved {
  before: string;
  after: string;
  /** Full names; a deleted ref has an empty target; `peeled` is what an annotated tag peels to. */
  refs: ReadonlyArray<{ name: string; target: string; peeled: string }>;
}

/** `repositoryId` undefined: every repository of the shard may have changed (a (re)connect or a break). */
export type ChangeListener = (shard: string, repositoryId: string | undefined, moved?: RefsMoved) => void;

export interface RefsWatch {
  /**
   * An opaque token that changes whenever `repositoryId`'s refs on `shard` may have changed;
   * undefined while the watch of that shard is not live (not yet ready, broken, reconnecting):
   * then nothing cached about the shard's refs may be used. Compare with ===.
   */
  version(shard: string, repositoryId: string): string | undefined;
  /**
   * An opaque token that changes whenever anything about `repositoryId` other than its refs may
   * have changed (merge requests, reviews, repository settings: git-storage's AnnounceChange);
   * undefined whenever `version` is, and when the shard's git-storage does not relay those
   * changes. A facts change leaves `version` (and so every ref cache) as it is, and runs no
   * `onChange` listener (docs/decisions/pulls-at-the-edge.md).
   */
  factsVersion(shard: string, repositoryId: string): string | undefined;
  /** Whether the watch of `shard` is live. */
  live(shard: string): boolean;
  /** Runs synchronously before a change is acked to git-storage. Returns an unsubscribe. */
  onChange(listener: ChangeListener): () => void;
  /** Resolves true once every shard's watch is live, false after `timeoutMs`. For tests and readiness. */
  ready(timeoutMs?: number): Promise<boolean>;
  close(): void;
}

export interface RefsWatchOptions {
  logger?: Logger;
  /** Reconnect backoff: first wait, doubled per failed attempt up to maxBackoffMs (with jitter). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Past this many repositories with a change since the last epoch, the shard starts a new epoch
   *  (every version changes) instead of growing its map. */
  maxTrackedRepositories?: number;
  /** Nothing heard from a shard (git-storage sends a heartbeat every second) for this long: its
   *  connection may be dead without us knowing, so versions are undefined and the stream is redone. */
  staleAfterMs?: number;
}

type Stream = grpc.ClientDuplexStream<storage.WatchRefsRequest, storage.RefsChanged__Output>;

interface ShardWatch {
  name: string;
  stream?: Stream;
  live: boolean;
  /** Changes on every (re)connect: a change may have been missed while the stream was down. */
  epoch: number;
  /** Per repository: the shard's change counter at its last ref change. */
  changed: Map<string, number>;
  /** Per repository: the shard's change counter at its last facts change (same counter, same epoch). */
  factsChanged: Map<string, number>;
  /** The ready message said git-storage relays facts changes (AnnounceChange). */
  relaysFacts: boolean;
  counter: number;
  attempt: number;
  timer?: NodeJS.Timeout;
  /** Date.now() of the last message from git-storage. */
  heard: number;
}

/** The token `version` answers for a repository of a live shard. */
function versionOf(w: ShardWatch, repositoryId: string): string {
  return `${w.epoch}:${w.changed.get(repositoryId) ?? 0}`;
}

// Process-wide so an epoch never repeats, not even across watches of the same shard.
let epochs = 0;

/**
 * Keeps one WatchRefs stream per git-storage shard open. git-storage holds every ref change
 * (push, merge, removal) until each watcher acked it, and a watcher acks only after its version
 * moved and listeners ran; so once a writer heard "done", no read here can match a version
 * taken before the change. A watcher git-storage cut off (no ack in time) sees its stream fail
 * and answers undefined until it is live again under a new epoch.
 */
export function createRefsWatch(clients: ShardClients, opts: RefsWatchOptions = {}): RefsWatch {
  const minBackoff = opts.minBackoffMs ?? 100;
  const maxBackoff = opts.maxBackoffMs ?? 5000;
  const maxTracked = opts.maxTrackedRepositories ?? 100_000;
  const staleAfter = opts.staleAfterMs ?? 5000;
  const listeners = new Set<ChangeListener>();
  const shards = new Map<string, ShardWatch>();
  const waiters = new Set<() => void>();
  let closed = false;

  const emit = (shard: string, repositoryId: string | undefined, moved?: RefsMoved): void => {
    for (const l of listeners) {
      try {
        l(shard, repositoryId, moved);
      } catch (err) {
        opts.logger?.error({ err, shard }, 'refs watch: a change listener failed');
      }
    }
  };

  const newEpoch = (w: ShardWatch): void => {
    w.epoch = ++epochs;
    w.changed.clear();
    w.factsChanged.clear();
    w.counter = 0;
  };

  const down = (w: ShardWatch, stream: Stream, err?: unknown): void => {
    if (w.stream !== stream) return; // an older stream's late event
    w.stream = undefined;
    const wasLive = w.live;
    w.live = false;
    newEpoch(w);
    if (wasLive) emit(w.name, undefined);
    stream.removeAllListeners();
    stream.on('error', () => {}); // cancel() may still report CANCELLED
    stream.cancel();
    if (closed) return;
    const wait = Math.min(maxBackoff, minBackoff * 2 ** w.attempt) * (0.5 + Math.random() / 2);
    w.attempt++;
    if (wasLive || w.attempt === 1) opts.logger?.warn({ err, shard: w.name, retry_in_ms: Math.round(wait) }, 'refs watch: stream to git-storage is down; ref caches off until it is back');
    w.timer = setTimeout(() => connect(w), wait);
    w.timer.unref();
  };

  const connect = (w: ShardWatch): void => {
    w.timer = undefined;
    if (closed) return;
    let stream: Stream;
    try {
      stream = clients.client(w.name).WatchRefs();
    } catch (err) {
      opts.logger?.error({ err, shard: w.name }, 'refs watch: no client for the shard');
      return;
    }
    w.stream = stream;
    stream.on('data', (msg: storage.RefsChanged__Output) => {
      if (w.stream !== stream) return;
      w.heard = Date.now();
      if (msg.heartbeat) return;
      if (msg.ready) {
        newEpoch(w);
        w.relaysFacts = msg.relays_facts;
        w.live = true;
        w.attempt = 0;
        emit(w.name, undefined);
        for (const resolve of waiters) resolve();
        return;
      }
      if (!w.live) return;
      if (w.changed.size + w.factsChanged.size >= maxTracked) {
        newEpoch(w);
        emit(w.name, undefined);
      } else if (msg.facts) {
        // Nothing derived from refs changed: no listener runs, ref caches stay. An empty id is
        // every repository of the shard (factsVersion reads it beside each repository's own).
        w.factsChanged.set(msg.repository_id, ++w.counter);
      } else {
        const before = versionOf(w, msg.repository_id);
        w.changed.set(msg.repository_id, ++w.counter);
        const moved = msg.refs_known ? { before, after: versionOf(w, msg.repository_id), refs: msg.refs } : undefined;
        emit(w.name, msg.repository_id, moved);
      }
      stream.write({ ack_seq: msg.seq });
    });
    stream.on('error', (err) => down(w, stream, err));
    stream.on('end', () => down(w, stream));
  };

  for (const name of clients.shards) {
    const w: ShardWatch = { name, live: false, epoch: ++epochs, changed: new Map(), factsChanged: new Map(), relaysFacts: false, counter: 0, attempt: 0, heard: 0 };
    shards.set(name, w);
    connect(w);
  }

  const staleness = setInterval(
    () => {
      for (const w of shards.values()) {
        if (w.live && w.stream && Date.now() - w.heard > staleAfter) down(w, w.stream, new Error(`nothing heard from git-storage for ${staleAfter} ms`));
      }
    },
    Math.max(10, Math.min(1000, staleAfter / 2)),
  ).unref();

  const shardOf = (shard: string): ShardWatch | undefined => shards.get(shard || DEFAULT_SHARD);
  const allLive = (): boolean => [...shards.values()].every((w) => w.live);
  const current = (shard: string): ShardWatch | undefined => {
    const w = shardOf(shard);
    return w?.live && Date.now() - w.heard <= staleAfter ? w : undefined;
  };

  return {
    version(shard, repositoryId) {
      const w = current(shard);
      return w && versionOf(w, repositoryId);
    },
    factsVersion(shard, repositoryId) {
      const w = current(shard);
      return w?.relaysFacts ? `${w.epoch}:${w.factsChanged.get('') ?? 0}:${w.factsChanged.get(repositoryId) ?? 0}` : undefined;
    },
    live: (shard) => shardOf(shard)?.live ?? false,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ready(timeoutMs = 5000) {
      if (allLive()) return Promise.resolve(true);
      return new Promise((resolve) => {
        // Called on every shard going live, and by close(): a closed watch will never be live.
        const check = (): void => {
          if (closed) {
            cleanup();
            resolve(false);
            return;
          }
          if (!allLive()) return;
          cleanup();
          resolve(true);
        };
        const timer = setTimeout(() => {
          cleanup();
          resolve(allLive());
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    close() {
      closed = true;
      clearInterval(staleness);
      for (const w of shards.values()) {
        clearTimeout(w.timer);
        if (w.stream) down(w, w.stream);
      }
      for (const check of [...waiters]) check();
    },
  };
}
