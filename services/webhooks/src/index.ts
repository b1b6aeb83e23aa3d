export { loadConfig, type Config } from './config.js';
export { createServer, type ServerDeps } from './server.js';
export type { Service } from '@githost/runtime';
// The stores and schema, for the scale bench (bench/src/scale-lists.ts) to run the very queries.
export { PgDeliveryStore } from './db/delivery-store.js';
export { PgWebhookStore } from './db/webhook-store.js';
export { MIGRATIONS } from './db/migrations.js';
