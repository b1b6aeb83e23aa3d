import type { Writable } from 'node:stream';
import { serveCommand, type CommandDeps, type CommandStreams, type SshCaller } from '../commands/index.js';
import { DEFAULT_SETTINGS_FILE } from './authorized-key.js';
import { isShellSafePath, readSettings, type Settings } from './settings.js';

/** What githost-serve needs besides the dispatcher's own dependencies. */
export interface ServeBackend {
  /** The caller the key authenticates now (accounts LookupSshKey by id); null once it no longer does. */
  callerOfKey(keyId: number): Promise<SshCaller | null>;
  deps: CommandDeps;
  close(): void;
}

export interface ServeArguments {
  settingsFile: string;
  keyId: number;
}

const USAGE = 'usage: githost-serve [--config=FILE] key-<id> (the command githost-keys forces for a key; the command to run comes in SSH_ORIGINAL_COMMAND)';

/** Splits `[--config=FILE] key-<id>`; an Error with the usage for anything else. */
export function parseServeArguments(argv: readonly string[]): ServeArguments {
  const args = [...argv];
  let settingsFile = DEFAULT_SETTINGS_FILE;
  if (args[0]?.startsWith('--config=')) settingsFile = args.shift()!.slice('--config='.length);
  const match = args.length === 1 ? /^key-([1-9][0-9]{0,15})$/.exec(args[0]!) : null;
  if (!match || !isShellSafePath(settingsFile)) throw new Error(USAGE);
  const keyId = Number(match[1]);
  if (!Number.isSafeInteger(keyId)) throw new Error(USAGE);
  return { settingsFile, keyId };
}

/** The message a key gets when it no longer authenticates anyone (deleted, its user suspended). */
export const KEY_REFUSED = 'githost: this key is not accepted (deleted, or its user suspended)';

function line(stream: Writable, text: string): void {
  stream.write(`${text}\n`);
}

/**
 * `githost-serve key-<id>`, run by sshd for a key githost-keys accepted
 * (services/ssh/README.md#openssh-mode): the key is looked up again by id, so a key deleted or
 * a user suspended since sshd asked is refused, and SSH_ORIGINAL_COMMAND (unset for a shell)
 * goes through the same dispatcher as the built-in server's exec requests
 * (docs/decisions/ssh-server.md#one-authorisation-path), with GIT_PROTOCOL when sshd passed it
 * (`AcceptEnv GIT_PROTOCOL`). Resolves with the exit status for sshd to pass on.
 */
export async function githostServe(argv: readonly string[], env: NodeJS.ProcessEnv, io: CommandStreams, backendOf: (settings: Settings, file: string) => ServeBackend): Promise<number> {
  let args: ServeArguments;
  let settings: Settings;
  try {
    args = parseServeArguments(argv);
    settings = readSettings(args.settingsFile);
  } catch (err) {
    line(io.stderr, `githost-serve: ${(err as Error).message}`);
    return 2;
  }
  let backend: ServeBackend;
  try {
    backend = backendOf(settings, args.settingsFile);
  } catch (err) {
    line(io.stderr, `githost-serve: ${(err as Error).message}`);
    return 1;
  }
  try {
    let caller: SshCaller | null;
    try {
      caller = await backend.callerOfKey(args.keyId);
    } catch (err) {
      backend.deps.logger.error({ err, key_id: args.keyId }, 'githost-serve: key lookup failed');
      line(io.stderr, 'githost: internal error, try again later');
      return 1;
    }
    if (!caller) {
      line(io.stderr, KEY_REFUSED);
      return 1;
    }
    const commandEnv: Record<string, string> = env.GIT_PROTOCOL !== undefined ? { GIT_PROTOCOL: env.GIT_PROTOCOL } : {};
    return await serveCommand(backend.deps, caller, env.SSH_ORIGINAL_COMMAND ?? null, commandEnv, io);
  } finally {
    backend.close();
  }
}
