export { startGithost, type RunningGithost, type StartOptions } from './launcher.js';
export { ADMIN_TOKEN_FILE } from './admin-token.js';
export type { ServiceProcess } from './processes.js';
