/**
 * What an SSH client asked to run (the exec request's string, or OpenSSH's
 * SSH_ORIGINAL_COMMAND), read without a shell: githost runs no command line, it recognises three
 * (docs/decisions/ssh-server.md#commands). git sends `git-upload-pack '/owner/repo.git'`, quoting
 * the path in single quotes; git-lfs sends `git-lfs-authenticate owner/repo.git download`.
 */
export type GitCommand = 'git-upload-pack' | 'git-receive-pack';
export type LfsOperation = 'upload' | 'download';

export type ParsedCommand =
  | { kind: 'shell' }
  | { kind: 'refused'; message: string }
  | { kind: 'git'; command: GitCommand; owner: string; name: string }
  | { kind: 'lfs-authenticate'; operation: LfsOperation; owner: string; name: string };

export const UNKNOWN_COMMAND = 'githost serves only git-upload-pack, git-receive-pack and git-lfs-authenticate over SSH';
export const INVALID_PATH = 'Invalid repository path: expected owner/repo, owner/repo.git or /owner/repo.git';
const BAD_QUOTING = 'Invalid command: arguments must be plain words or single-quoted';

/** Longest command line read; git's own are a fraction of it. */
const MAX_COMMAND_LENGTH = 1024;

/** An owner or repository name as accounts allows them, and never an option nor `.`/`..`. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/;

/**
 * Splits a command line into words: a word is either unquoted (no quotes, backslashes or shell
 * metacharacters) or one whole single-quoted string, as git writes it (sq_quote_buf). Anything
 * else, even what a shell would accept (`'a'\''b'`, `"a"`, `$x`, `;`), is refused: no shell ever
 * sees the line, and there is nothing legitimate that needs it. null when it does not split.
 */
export function splitWords(line: string): string[] | null {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    if (line[i] === ' ') {
      i++;
      continue;
    }
    if (line[i] === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return null;
      // A quoted word must end the word: `'a'b` and `'a''b'` are refused.
      if (end + 1 < line.length && line[end + 1] !== ' ') return null;
      words.push(line.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    let end = line.indexOf(' ', i);
    if (end < 0) end = line.length;
    const word = line.slice(i, end);
    if (!/^[A-Za-z0-9._/=:-]+$/.test(word)) return null;
    words.push(word);
    i = end;
  }
  return words;
}

/**
 * The repository a path names: `owner/repo`, `owner/repo.git`, `/owner/repo` or `/owner/repo.git`
 * (docs/decisions/ssh-server.md#paths); null for anything else (`~`, `..`, an option, more or
 * fewer segments, a control character).
 */
export function repositoryPath(path: string): { owner: string; name: string } | null {
  const trimmed = path.startsWith('/') ? path.slice(1) : path;
  const segments = trimmed.split('/');
  if (segments.length !== 2) return null;
  const owner = segments[0]!;
  let name = segments[1]!;
  if (name.endsWith('.git')) name = name.slice(0, -'.git'.length);
  if (!SEGMENT.test(owner) || !SEGMENT.test(name) || owner.includes('..') || name.includes('..')) return null;
  return { owner, name };
}

/** A newline or any other control character: never part of a command git sends. */
function hasControlCharacter(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

export function parseCommand(commandLine: string | null): ParsedCommand {
  if (commandLine === null) return { kind: 'shell' };
  if (commandLine.length > MAX_COMMAND_LENGTH || hasControlCharacter(commandLine)) return { kind: 'refused', message: UNKNOWN_COMMAND };
  const words = splitWords(commandLine.trim());
  if (words === null) return { kind: 'refused', message: BAD_QUOTING };
  if (words.length === 0) return { kind: 'shell' };
  const [command, ...args] = words as [string, ...string[]];
  if (command === 'git-upload-pack' || command === 'git-receive-pack') {
    if (args.length !== 1) return { kind: 'refused', message: `${command} takes exactly one argument: the repository path` };
    const repo = repositoryPath(args[0]!);
    return repo ? { kind: 'git', command, ...repo } : { kind: 'refused', message: INVALID_PATH };
  }
  if (command === 'git-lfs-authenticate') {
    // git-lfs docs/api/server-discovery.md: `git-lfs-authenticate <path> <operation>`.
    const operation = args[1];
    if (args.length !== 2 || (operation !== 'upload' && operation !== 'download')) return { kind: 'refused', message: 'git-lfs-authenticate takes a repository path and upload or download' };
    const repo = repositoryPath(args[0]!);
    return repo ? { kind: 'lfs-authenticate', operation, ...repo } : { kind: 'refused', message: INVALID_PATH };
  }
  return { kind: 'refused', message: UNKNOWN_COMMAND };
}
