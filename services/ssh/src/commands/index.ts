export { serveCommand, REPOSITORY_NOT_FOUND, RATE_LIMITED, type CommandDeps, type CommandStreams, type GitRun, type LfsAuthentication, type SshCaller } from './serve-command.js';
export { sshCallerOf, principalOf, greeting } from './caller.js';
export { parseCommand, repositoryPath, splitWords, type ParsedCommand, type GitCommand, type LfsOperation } from './parse-command.js';
