export { loadConfig, type Config } from './config.js';
export { createServer, type Deps, type Service } from './server.js';
export type { RecoveryOptions } from './recovery-loop.js';
