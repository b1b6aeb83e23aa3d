import type { Commit, Signature as ApiSignature } from '@githost/api-types';

/** An author or committer as the API sends it (openapi.yaml `Signature`): the date ISO 8601
 *  with the offset git recorded, `+00:00` for UTC. */
export type Signature = ApiSignature;

/** CONTRACT §5 commit record, as the API sends it (openapi.yaml `Commit`). */
export type CommitRecord = Commit;

/** A commit object's fields, before its id is known or its headers are checked. */
export type CommitFields = Omit<CommitRecord, 'sha'>;

const NO_SIGNATURE: Signature = { name: '', email: '', date: '' };

/**
 * Parses a raw commit object for the API: a commit without a tree, author or committer line fails
 * loudly. The one parser: a push webhook (git-storage) and `GET /commits` (browse) read commits
 * through it, so both give the same dates.
 */
export function parseCommit(sha: string, raw: Uint8Array): CommitRecord {
  const { fields, complete } = scanCommit(raw);
  if (!complete) throw new Error(`malformed commit object ${sha}`);
  return { sha, ...fields };
}

/**
 * Parses any object git stored as a commit and never throws: a missing person line reads as
 * empty name, email and date, as `git log` shows it.
 */
export function parseCommitObject(raw: Uint8Array): CommitFields {
  return scanCommit(raw).fields;
}

/**
 * Headers run to the first blank line; continuation lines (a `gpgsig` or `mergetag` body) start
 * with a space and are skipped. The message is everything after the blank line, byte for byte
 * (CONTRACT §9: trailing newline included).
 */
function scanCommit(raw: Uint8Array): { fields: CommitFields; complete: boolean } {
  const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
  const split = text.indexOf('\n\n');
  const head = split === -1 ? text : text.slice(0, split);
  const message = split === -1 ? '' : text.slice(split + 2);
  let tree = '';
  const parents: string[] = [];
  let author: Signature | undefined;
  let committer: Signature | undefined;
  for (const line of head.split('\n')) {
    if (line.startsWith(' ')) continue;
    const space = line.indexOf(' ');
    const key = space === -1 ? line : line.slice(0, space);
    const value = space === -1 ? '' : line.slice(space + 1);
    if (key === 'tree') tree = value;
    else if (key === 'parent') parents.push(value);
    else if (key === 'author') author = parseSignature(value);
    else if (key === 'committer') committer = parseSignature(value);
  }
  const fields = { tree, parents, author: author ?? NO_SIGNATURE, committer: committer ?? NO_SIGNATURE, message };
  return { fields, complete: Boolean(tree && author && committer) };
}

/**
 * `Name <email> <unix seconds> <+hhmm>`, split the way git's split_ident_line does: the name ends
 * at the first `<`, the email at the next `>`, the date follows the last `>`: digits, then a sign
 * and digits. Anything else there is no date, and git shows none (`%aI` stays empty).
 */
export function parseSignature(value: string): Signature {
  const open = value.indexOf('<');
  const close = open === -1 ? -1 : value.indexOf('>', open);
  if (close === -1) return { name: value.trim(), email: '', date: '' };
  const name = value.slice(0, open).trim();
  const email = value.slice(open + 1, close);
  const when = /^[ \t\r]*(\d+)[ \t\r]*([+-]\d*)/.exec(value.slice(value.lastIndexOf('>') + 1));
  return { name, email, date: when ? formatGitDate(Number(when[1]), when[2]!) : '' };
}

/**
 * ISO 8601 in the author's own offset (`2024-03-01T14:05:09+05:30`), as `git log --format=%aI`
 * prints it: the offset is read as a decimal number (`-0000` is `+00:00`, `+05` is `+00:05`), and
 * a time past what a date holds shows as the epoch in UTC, as git shows one it cannot represent.
 */
export function formatGitDate(seconds: number, offset: string): string {
  const parsed = Number.parseInt(offset, 10);
  const tz = Math.abs(parsed) < 2 ** 31 - 1 ? parsed : 0; // strtol's overflow, as git's show_ident_date
  const hours = Math.trunc(Math.abs(tz) / 100);
  const minutes = Math.abs(tz) % 100;
  const offsetSeconds = Math.sign(tz) * (hours * 60 + minutes) * 60;
  const local = new Date((seconds + offsetSeconds) * 1000);
  if (!Number.isSafeInteger(seconds) || Number.isNaN(local.getTime())) return formatGitDate(0, '+0000');
  const day = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  return `${day}T${time}${tz < 0 ? '-' : '+'}${pad(hours)}:${pad(minutes)}`;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
