export { loadConfig, type Config } from './config.js';
export { createServer, type Service, type ServerDeps } from './server.js';
export type { RepositoryStorage } from './domain/ports.js';
