export { loadConfig, type Config } from './config.js';
export { createServer, type Service, type ServerDeps } from './server.js';
export { repositoryPath } from './repository-path.js';
export { parseCommit, type ParsedCommit, type Person } from './git/commit-parse.js';
export type { PushPayload, RepositoryDeletedPayload } from './events/push-events.js';
export type { RefPolicySource } from './clients/ref-policies.js';
