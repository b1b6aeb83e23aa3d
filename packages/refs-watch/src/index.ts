/*
 * Ref-change watch (docs/architecture.md#the-services, conditional reads): per git-storage shard one WatchRefs stream, and per repository a
 * version that changes whenever its refs may have changed. Cache anything derived from refs
 * together with the version read BEFORE asking git-storage, and use it only while
 * `version(shard, repo)` still returns that same token; undefined means "do not use any cache".
 *
 *   const watch = createRefsWatch(router, { logger });   // router: @githost/storage-router
 *   const v = watch.version(repo.shard, repo.id);
 *   const refs = v !== undefined && cached?.version === v ? cached.refs : await listRefs(...);
 */
export { createRefsWatch, type ChangeListener, type RefsMoved, type RefsWatch, type RefsWatchOptions, type ShardClients } from './watch.js';
export { announceChange, announceEverywhere, DEFAULT_ANNOUNCE_RETRY_MS, EVERY_REPOSITORY, type AnnounceOptions } from './announce.js';
