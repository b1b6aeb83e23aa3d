export { loadConfig, type Config, type UpstreamName } from './config.js';
export { createServer, type GatewayDeps, type Service } from './server.js';
export type { AccountsGateway } from './clients/accounts.js';
export type { CacheTtls } from './clients/cached-accounts.js';
