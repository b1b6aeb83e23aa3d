export { loadConfig, type Config } from './config.js';
export { createServer, type GitStorageService, type ServerDeps } from './server.js';
export type { Service } from '@githost/runtime';
export { repositoryPath } from './repository-path.js';
export type { PushPayload, RepositoryDeletedPayload } from './events/push-events.js';
export type { RefPolicySource } from './clients/ref-policies.js';
