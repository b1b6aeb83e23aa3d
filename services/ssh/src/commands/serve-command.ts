import type { Readable, Writable } from 'node:stream';
import { AppError } from '@githost/errors';
import { deployKeyRepository, repositoryRefusal, WRITE_REFUSED, type Principal, type RepoContext } from '@githost/identity';
import type { Logger } from '@githost/logging';
import { greeting, principalOf, type SshCaller } from './caller.js';
import { parseCommand, type GitCommand, type LfsOperation } from './parse-command.js';

export type { SshCaller } from './caller.js';

export interface CommandStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Runs a write to `stdout` with the connection's socket corked (the SSH server's; absent elsewhere). */
  corked?: (write: () => boolean) => boolean;
}

/** One git command to run against a repository the caller was found to have access to. */
export interface GitRun {
  command: GitCommand;
  repo: RepoContext;
  principal: Principal;
  requestId: string;
  /** GIT_PROTOCOL as the client sent it, when well-formed (protocol v2). */
  gitProtocol?: string;
}

/** git-lfs's answer to `git-lfs-authenticate` (git-lfs docs/api/server-discovery.md). */
export interface LfsAuthentication {
  href: string;
  header: Record<string, string>;
  expires_in: number;
}

/** What the dispatcher needs from outside; the ssh2 server and `githost-serve` provide it. */
export interface CommandDeps {
  /** The repository and the user's permission on it (accounts Authorize); null when none. */
  authorize(principal: Principal, owner: string, name: string, requestId: string): Promise<RepoContext | null>;
  /** Spends one request of the caller's git budget; false when it is spent. */
  withinGitBudget(caller: SshCaller): Promise<boolean>;
  /** Runs git in git-storage, streaming `io`; resolves with git's exit status. A refusal before
   *  git starts rejects with an AppError (its message goes to the client). */
  runGit(run: GitRun, io: CommandStreams): Promise<number>;
  /** A short-lived credential for the repository's LFS endpoints, for that operation only. */
  lfsAuthentication(principal: Principal, repo: RepoContext, operation: LfsOperation): LfsAuthentication;
  newRequestId(): string;
  logger: Logger;
}

// Values git itself sends ("version=2", "version=2:object-format=sha1"), as git-storage checks them.
const GIT_PROTOCOL = /^[A-Za-z0-9=:._-]{1,256}$/;

export const REPOSITORY_NOT_FOUND = 'Repository not found';
export const RATE_LIMITED = 'Rate limit exceeded: too many git requests, try again in a minute';

function refuse(io: CommandStreams, message: string): number {
  io.stderr.write(`${message}\n`);
  return 1;
}

/**
 * Runs one SSH command line (the exec request's string / SSH_ORIGINAL_COMMAND); resolves with
 * the exit status. The one authorisation path of SSH (docs/decisions/ssh-server.md#one-authorisation-path):
 * the command is parsed without a shell, the budget spent, the repository's access decided by the
 * rule smart HTTP uses (packages/identity repositoryRefusal), and only then does git run, in
 * git-storage, which checks the signed identity once more. Every refusal is one line on stderr
 * and exit status 1.
 */
export async function serveCommand(deps: CommandDeps, caller: SshCaller, commandLine: string | null, env: Record<string, string>, io: CommandStreams): Promise<number> {
  const parsed = parseCommand(commandLine);
  if (parsed.kind === 'shell') return refuse(io, greeting(caller));
  if (parsed.kind === 'refused') return refuse(io, parsed.message);
  try {
    if (!(await deps.withinGitBudget(caller))) return refuse(io, RATE_LIMITED);
    const requestId = deps.newRequestId();
    const principal = principalOf(caller);
    const write = parsed.kind === 'git' ? parsed.command === 'git-receive-pack' : parsed.operation === 'upload';
    const repo =
      caller.kind === 'deploy_key'
        ? deployKeyRepository(caller.repository!, caller.readOnly !== false, parsed.owner, parsed.name)
        : await deps.authorize(principal, parsed.owner, parsed.name, requestId);
    const refusal = repositoryRefusal(repo, write ? 'write' : 'read', false);
    if (refusal === 'not_found') return refuse(io, REPOSITORY_NOT_FOUND);
    if (refusal) return refuse(io, WRITE_REFUSED);
    if (parsed.kind === 'lfs-authenticate') {
      io.stdout.write(`${JSON.stringify(deps.lfsAuthentication(principal, repo!, parsed.operation))}\n`);
      return 0;
    }
    const gitProtocol = env.GIT_PROTOCOL !== undefined && GIT_PROTOCOL.test(env.GIT_PROTOCOL) ? env.GIT_PROTOCOL : undefined;
    return await deps.runGit({ command: parsed.command, repo: repo!, principal, requestId, ...(gitProtocol ? { gitProtocol } : {}) }, io);
  } catch (err) {
    if (err instanceof AppError && err.kind !== 'internal') return refuse(io, err.kind === 'not_found' ? REPOSITORY_NOT_FOUND : err.message);
    deps.logger.error({ err, key_id: caller.keyId }, 'ssh command failed');
    return refuse(io, 'githost: internal error, try again later');
  }
}
