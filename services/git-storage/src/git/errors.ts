/**
 * Low-level git failures, typed from git's stderr (Gitaly's RefLockedError / RefMismatchError
 * habit). Domain code turns them into AppError kinds; only the transport edge maps kinds to codes.
 */
export class GitError extends Error {
  readonly stderr: string;
  readonly exitCode: number | null;
  constructor(message: string, stderr = '', exitCode: number | null = null) {
    super(message);
    this.name = 'GitError';
    this.stderr = stderr;
    this.exitCode = exitCode;
  }
}

/** Another writer holds the ref's lock file. */
export class RefLockedError extends GitError {
  override name = 'RefLockedError';
}

/** A compare-and-swap ref update found a different current value. */
export class RefMismatchError extends GitError {
  override name = 'RefMismatchError';
}

/** A revision or object git could not find. */
export class NotFoundError extends GitError {
  override name = 'NotFoundError';
}

/** The command was stopped before it finished: it ran past its deadline, or was cancelled. */
export class GitTimeoutError extends GitError {
  override name = 'GitTimeoutError';
}

/**
 * The caller's signal aborted the command (the caller went away). A timeout of the caller's own
 * choosing, so it is one; callers sharing another caller's run tell it apart to try again.
 */
export class GitCancelledError extends GitTimeoutError {
  override name = 'GitCancelledError';
}

/** An abbreviated object id more than one object starts with. */
export class AmbiguousRevisionError extends GitError {
  override name = 'AmbiguousRevisionError';
}

/** The command wrote more than its caller's `maxStdoutBytes` and was stopped. */
export class GitOutputTooBigError extends GitError {
  override name = 'GitOutputTooBigError';
}

/** Chooses the typed error for a failed command from what git printed. */
export function classifyGitFailure(subcommand: string, stderr: string, exitCode: number | null): GitError {
  const msg = `git ${subcommand} failed (exit ${exitCode ?? 'signal'}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
  if (/cannot lock ref .*(is at [0-9a-f]+ but expected|reference already exists|unable to resolve reference|reference is missing but expected)/i.test(stderr)) {
    return new RefMismatchError(msg, stderr, exitCode);
  }
  if (/Unable to create '.*\.lock': File exists/i.test(stderr) || /cannot lock ref/i.test(stderr)) {
    return new RefLockedError(msg, stderr, exitCode);
  }
  if (/short object ID \S+ is ambiguous/i.test(stderr)) return new AmbiguousRevisionError(msg, stderr, exitCode);
  // rev-parse --verify's only words for a revision that names nothing.
  if (subcommand === 'rev-parse' && /Needed a single revision/i.test(stderr)) return new NotFoundError(msg, stderr, exitCode);
  if (/(Not a valid (object name|commit name)|bad revision|unknown revision|bad object|not a tree object|not a valid object|Invalid revision range|, not a commit)/i.test(stderr)) {
    return new NotFoundError(msg, stderr, exitCode);
  }
  // update-ref's words for a new value that is missing or not a commit.
  if (subcommand === 'update-ref' && /(not a valid SHA1|trying to write non-commit|does not point to a valid object|with nonexistent object)/i.test(stderr)) {
    return new NotFoundError(msg, stderr, exitCode);
  }
  return new GitError(msg, stderr, exitCode);
}
