export { loadConfig, type Config } from './config.js';
export { createServer, type ServerDeps } from './server.js';
export type { Service } from '@githost/runtime';
