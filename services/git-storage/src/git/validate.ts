import { validation } from '@githost/errors';
import { isFullOid } from '@githost/git-records/object-id';
import { refFormatProblem } from '@githost/ref-policy';

/**
 * The only gates between a request and git. Everything a request names (ref, revision, path) passes
 * one of these before it reaches a git argument list or a cat-file batch line, so nothing from a
 * request can be read as an option, leave the repository, or split a line-based protocol.
 */

export const MAX_REF_LENGTH = 1024;
export const MAX_PATH_LENGTH = 4096;
const ABBREV_OID = /^[0-9a-f]{4,40}$/;

/** A fully qualified ref name (`refs/...`) as `git check-ref-format` accepts it, never an option. */
export function validateRefName(ref: string): string {
  if (typeof ref !== 'string' || ref.length === 0) throw validation('Ref name is required');
  if (ref.length > MAX_REF_LENGTH) throw validation('Ref name is too long');
  if (!ref.startsWith('refs/')) throw validation(`Invalid ref name: ${printable(ref)}`);
  if (!isValidRefFormat(ref)) throw validation(`Invalid ref name: ${printable(ref)}`);
  return ref;
}

/** The rules of `git check-ref-format` (plus: no component may start with '-'), as
 *  @githost/ref-policy states them for every service. */
export function isValidRefFormat(ref: string): boolean {
  return refFormatProblem(ref) === null;
}

/**
 * A revision as the storage protocol allows it: a fully qualified ref or 4 to 40 lowercase hex
 * digits. Revision expressions (`~`, `^`, `@{`, `:`) are refused: callers resolve names to ids.
 */
export function validateRevision(revision: string): string {
  if (typeof revision !== 'string' || revision.length === 0) throw validation('Revision is required');
  if (ABBREV_OID.test(revision)) return revision;
  if (revision.startsWith('refs/')) return validateRefName(revision);
  throw validation(`Invalid revision: ${printable(revision)}`);
}

/** One ancestry step of a revision expression: `~N`, `^N` (N at most 6 digits), `^{}` or `^{commit}`. */
const EXPRESSION_STEP = /~\d{0,6}|\^\d{0,6}(?![{])|\^\{(?:commit)?\}/y;
const MAX_EXPRESSION_STEPS = 32;

/**
 * A revision expression whose base a caller resolved already (docs/decisions/gitea-api.md#revision-expressions):
 * a full or abbreviated (4 to 39 lowercase hex) id or a fully qualified ref, then ancestry steps
 * only. Nothing else git's revision syntax offers gets through: no `@{...}` (reflogs, upstreams,
 * the previous branch), no `:` (paths, `:/` message searches), no `^{/...}` searches, no ranges,
 * no `^!`/`^@`/`^-`, and nothing that starts with `-`.
 */
export function validateCommitExpression(expression: string): string {
  if (typeof expression !== 'string' || expression.length === 0) throw validation('Revision is required');
  const cut = expression.search(/[~^]/);
  const base = cut < 0 ? expression : expression.slice(0, cut);
  if (!(ABBREV_OID.test(base) || (base.startsWith('refs/') && base.length <= MAX_REF_LENGTH && isValidRefFormat(base)))) throw validation(`Invalid revision: ${printable(expression)}`);
  let steps = 0;
  for (let at = base.length; at < expression.length; steps++) {
    EXPRESSION_STEP.lastIndex = at;
    const step = EXPRESSION_STEP.exec(expression);
    if (!step || steps >= MAX_EXPRESSION_STEPS) throw validation(`Invalid revision: ${printable(expression)}`);
    at += step[0].length;
  }
  return expression;
}

/** A full 40-hex object id. */
export function validateOid(oid: string, what = 'object id'): string {
  if (typeof oid !== 'string' || !isFullOid(oid)) throw validation(`Invalid ${what}: ${printable(oid ?? '')}`);
  return oid;
}

/** 4 to 40 lowercase hex digits. */
export function validateAbbrevOid(oid: string, what = 'object id'): string {
  if (typeof oid !== 'string' || !ABBREV_OID.test(oid)) throw validation(`Invalid ${what}: ${printable(oid ?? '')}`);
  return oid;
}

/**
 * A path inside a tree: relative, no `.`/`..`/empty segment, no NUL, LF or CR (cat-file batch input
 * is line based and git drops a CR before the LF), bounded. Empty means the root when `allowEmpty`.
 * A backslash is an ordinary byte in a git file name (cat-file reads batch lines literally), so
 * `a\b.txt` is a file in the root, never a path separator.
 */
export function validatePath(path: string, opts: { allowEmpty?: boolean } = {}): string {
  if (typeof path !== 'string') throw validation('Invalid path');
  if (path.length === 0) {
    if (opts.allowEmpty) return path;
    throw validation('Path required');
  }
  if (path.length > MAX_PATH_LENGTH) throw validation('Path is too long');
  // eslint-disable-next-line no-control-regex
  if (/[\x00\n\r]/.test(path)) throw validation(`Invalid path: ${printable(path)}`);
  if (path.startsWith('/') || path.endsWith('/')) throw validation(`Invalid path: ${printable(path)}`);
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.' || seg === '..') throw validation(`Invalid path: ${printable(path)}`);
  }
  return path;
}

/** A branch name without `refs/heads/` (for CreateRepository's default branch). */
export function validateBranchName(name: string): string {
  if (typeof name !== 'string' || name.length === 0) throw validation('Branch name is required');
  validateRefName(`refs/heads/${name}`);
  return name;
}

/** Repository ids address directories through a hash, but still must be sane identifiers. */
export function validateRepositoryId(id: string): string {
  if (typeof id !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(id)) throw validation('Invalid repository id');
  return id;
}

/** Request text echoed into an error message, without control characters and bounded. */
function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = s.replace(/[\x00-\x1f\x7f]/g, '?');
  return clean.length > 200 ? `${clean.slice(0, 200)}...` : clean;
}
