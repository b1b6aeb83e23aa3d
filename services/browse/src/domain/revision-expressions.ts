import { validation } from '@githost/errors';

/** A revision expression the paged log resolves: a base and its ancestry steps ('' for none). */
export interface RevisionExpression {
  /** A branch, a tag, `HEAD`, or a full or abbreviated (4 to 39 hex digits) commit id. */
  base: string;
  /** `~N`, `^N`, `^{}`, `^{commit}`, at most 32 of them. */
  steps: string;
}

const STEPS = /^(?:~\d{0,6}|\^\d{0,6}(?!\{)|\^\{(?:commit)?\})*$/;
const STEP = /~\d{0,6}|\^\d{0,6}(?!\{)|\^\{(?:commit)?\}/g;
const MAX_STEPS = 32;
const ABBREVIATED = /^[0-9a-fA-F]{4,39}$/;

/**
 * What a name the paged log's branches, tags and full ids do not know may still be, as git reads
 * Gitea's `sha` and `not` (docs/decisions/gitea-api.md#revision-expressions): `HEAD`, an
 * abbreviated id, or any of those or a branch or tag followed by ancestry steps. Undefined for a
 * plain name (which stays `Ref not found`). git's other forms are refused with a 400, since each
 * means something githost will not do for a request: `@{...}` (reflogs, upstreams, the previous
 * branch), `:` (a path in a tree, `:/` a search through every commit message), `^{/...}` (a
 * message search), and ranges and `^!`/`^@`/`^-`.
 */
export function revisionExpressionOf(name: string): RevisionExpression | undefined {
  const refused = () => validation(`Unsupported revision expression: ${name.slice(0, 200)} (a branch, tag or commit id, optionally followed by ~N, ^N or ^{})`);
  // No ref starts with `-` (git check-ref-format): such a name is simply not found, as it always was.
  if (name.startsWith('-')) return undefined;
  if (name.includes('@{') || name.includes(':') || name.includes('..') || name.includes('^{/')) throw refused();
  const { base, steps } = split(name);
  if (steps === '' && base !== 'HEAD' && !ABBREVIATED.test(base)) return undefined;
  if (base === '' || !STEPS.test(steps) || (steps.match(STEP)?.length ?? 0) > MAX_STEPS) throw refused();
  return { base, steps };
}

/** A name cut at its first `~` or `^`: the base before it, the steps from it. */
function split(name: string): RevisionExpression {
  const cut = name.search(/[~^]/);
  return cut < 0 ? { base: name, steps: '' } : { base: name.slice(0, cut), steps: name.slice(cut) };
}

/**
 * The base of what may be a revision expression, whose refs must be loaded before it is resolved:
 * '' for a plain name (its refs are loaded as a name's) or none; never throws (a refused form is
 * refused when resolved).
 */
export function expressionBaseOf(name: string): string {
  const { base, steps } = split(name);
  return steps !== '' ? base : name === 'HEAD' ? 'HEAD' : '';
}

/** Whether `base` can only be an abbreviated commit id (no branch or tag of that name exists). */
export function isAbbreviatedId(base: string): boolean {
  return ABBREVIATED.test(base);
}
