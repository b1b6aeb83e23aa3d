import type { Commit, Signature as ApiSignature } from '@githost/api-types';

/** An author or committer as the API sends it (openapi.yaml `Signature`): the date ISO 8601
 *  with the offset git recorded, `+00:00` for UTC. */
export type Signature = ApiSignature;

/** CONTRACT §5 commit record, as the API sends it (openapi.yaml `Commit`). */
export type CommitRecord = Commit;

/**
 * Parses a raw commit object. Headers run to the first blank line; continuation lines (a
 * `gpgsig` or `mergetag` body) start with a space and are skipped. The message is everything
 * after the blank line, byte for byte (CONTRACT §9: trailing newline included).
 */
export function parseCommit(sha: string, raw: Uint8Array): CommitRecord {
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
  if (!tree || !author || !committer) throw new Error(`malformed commit object ${sha}`);
  return { sha, tree, parents, author, committer, message };
}

/**
 * `Name <email> <unix seconds> <+hhmm>`, split the way git's split_ident_line does: the name ends
 * at the first `<`, the email at the next `>`, the date follows the last `>`.
 */
export function parseSignature(value: string): Signature {
  const open = value.indexOf('<');
  const close = open === -1 ? -1 : value.indexOf('>', open);
  if (close === -1) return { name: value.trim(), email: '', date: '' };
  const name = value.slice(0, open).trim();
  const email = value.slice(open + 1, close);
  const [seconds, offset] = value.slice(value.lastIndexOf('>') + 1).trim().split(/\s+/);
  return { name, email, date: formatGitDate(Number(seconds), offset ?? '+0000') };
}

/** ISO 8601 in the author's own offset: `2024-03-01T14:05:09+05:30`. */
export function formatGitDate(seconds: number, offset: string): string {
  const m = /^([+-])(\d\d)(\d\d)$/.exec(offset);
  const sign = m?.[1] === '-' ? -1 : 1;
  const hours = Number(m?.[2] ?? 0);
  const minutes = Number(m?.[3] ?? 0);
  const offsetMinutes = sign * (hours * 60 + minutes);
  const local = new Date((seconds + offsetMinutes * 60) * 1000);
  if (!Number.isFinite(seconds) || Number.isNaN(local.getTime())) return '';
  const suffix = offsetMinutes === 0 ? '+00:00' : `${sign < 0 ? '-' : '+'}${pad(hours)}:${pad(minutes)}`;
  return local.toISOString().slice(0, 19) + suffix;
}

const pad = (n: number) => String(n).padStart(2, '0');
