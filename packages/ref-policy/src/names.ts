/**
 * Branch and tag names (docs/decisions/ref-names.md). Each check answers why a name is refused,
 * phrased to follow "<name> is not valid: ", or null when it is fine.
 */

/**
 * `git check-ref-format`'s rules, plus githost's own: no `/`-separated component starts with `-`,
 * so no part of a ref name can read as an option of a git command. Works on a full ref
 * (`refs/heads/x`) as on a short name (`x`).
 */
export function refFormatProblem(name: string): string | null {
  if (name.length === 0) return 'it is empty';
  if (name.startsWith('-')) return "it starts with '-'";
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return 'it contains a space, a control character or one of ~ ^ : ? * [ \\';
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return "it contains '..', '@{' or '//'";
  if (name === '@' || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return "it is '@', or starts or ends with '/', or ends with '.'";
  if (name.split('/').some((part) => part.startsWith('.') || part.startsWith('-') || part.endsWith('.lock'))) return "a component starts with '.' or '-' or ends with '.lock'";
  return null;
}

/**
 * Why a NEW branch or tag (its short name, without `refs/heads/` or `refs/tags/`) may not take
 * this name: the format above, and three names the rest of githost could not tell apart from
 * something else. `HEAD` is what git and the API read as the default branch (docs/decisions/browse-refs.md:
 * browse answers 404 for it); a name with U+FFFD is how a name that is not UTF-8 reads once decoded
 * (the API could never address it); and of two names that differ only by Unicode normalisation
 * (`café` composed or decomposed), only the NFC one is taken, so they can never be two branches.
 */
export function newRefNameProblem(name: string): string | null {
  const format = refFormatProblem(name);
  if (format !== null) return format;
  if (name === 'HEAD') return 'it is HEAD, which git and the API read as the default branch';
  if (name.includes('\ufffd')) return 'it is not valid UTF-8';
  if (name.normalize('NFC') !== name) return 'it is not in Unicode normalization form C (NFC; composed characters, as macOS git and browsers send them)';
  return null;
}
