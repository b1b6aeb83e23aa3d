import { validation } from '@githost/errors';
import { newRefNameProblem } from '@githost/ref-policy';

const NAME_CHARS = /^[A-Za-z0-9._-]+$/;
const MAX_NAME = 100;

/**
 * CONTRACT §8: usernames and repository names are 1 to 100 characters of letters, digits, `-`,
 * `_`, `.`, not starting with `.` or `-` and not ending in `.git`. One message per broken rule,
 * so the caller knows what to change.
 */
export function checkName(label: 'Username' | 'Repository name', value: string): string {
  if (value.length === 0) throw validation(`${label} must not be empty`);
  if (value.length > MAX_NAME) throw validation(`${label} must be at most ${MAX_NAME} characters`);
  if (!NAME_CHARS.test(value)) throw validation(`${label} may contain only letters, digits, '-', '_' and '.'`);
  if (value.startsWith('.') || value.startsWith('-')) throw validation(`${label} must not start with '.' or '-'`);
  if (value.toLowerCase().endsWith('.git')) throw validation(`${label} must not end in '.git'`);
  return value;
}

/**
 * `api` as an owner would make `/api/<repo>.git` ambiguous between the REST API and git
 * transport at the gateway, so no user may take it.
 */
const RESERVED_USERNAMES = new Set(['api']);

export function checkUsername(value: string): string {
  checkName('Username', value);
  if (RESERVED_USERNAMES.has(value.toLowerCase())) throw validation(`Username '${value}' is reserved`);
  return value;
}

export const checkRepositoryName = (value: string): string => checkName('Repository name', value);

const MAX_BRANCH = 255;

/**
 * Why `value` cannot be a default branch, or null. It becomes `refs/heads/<name>` in git-storage,
 * so it is a name a push could create (@githost/ref-policy: git's check-ref-format, no component
 * starting with `-`, not `HEAD`, in NFC), and at most MAX_BRANCH characters.
 */
export function branchNameProblem(value: string): string | null {
  if (value.length > MAX_BRANCH) return `it is longer than ${MAX_BRANCH} characters`;
  return newRefNameProblem(value);
}

export function checkBranchName(value: string): string {
  const problem = branchNameProblem(value);
  if (problem !== null) throw validation(`default_branch is not a valid branch name: ${problem}`);
  return value;
}

/** Loose on purpose: one `@` with something either side and no spaces. Mail delivery proves the rest. */
export function checkEmail(value: string): string {
  if (value.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(value)) throw validation('email must look like an address (name@example.com)');
  return value;
}
