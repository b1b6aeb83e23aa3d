export { loadConfig, type Config } from './config.js';
export { createServer, type ServerDeps } from './server.js';
export type { Service } from '@githost/runtime';
export type { RecoveryOptions } from './recovery-loop.js';
// The store and schema, for the scale bench (bench/src/scale-lists.ts) to run the very queries.
export { PgMergeRequestStore } from './db/merge-request-store.js';
export { MIGRATIONS } from './db/migrations.js';
