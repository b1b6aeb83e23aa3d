export { loadConfig, type Config, type UpstreamName } from './config.js';
export { createServer, type ServerDeps } from './server.js';
export type { Service } from '@githost/runtime';
export type { AccountsGateway } from './clients/accounts.js';
export type { CacheTtls } from './clients/cached-accounts.js';
