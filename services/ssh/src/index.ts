export { loadConfig, type Config } from './config.js';
export { createServer, type ServerDeps, type SshPorts, type HostKeysAnswer } from './server.js';
export * from './commands/index.js';
export type { Service } from '@githost/runtime';
