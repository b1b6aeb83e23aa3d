/** A person line of a commit (`Name <email> <unix seconds> <+hhmm>`). */
export interface Person {
  name: string;
  email: string;
  /** ISO 8601 in the commit's own offset (`+00:00` for UTC), as CONTRACT §9 asks. */
  date: string;
}

export interface ParsedCommit {
  tree: string;
  parents: string[];
  author: Person;
  committer: Person;
  /** Exactly git's message, trailing newline included. */
  message: string;
}

export function parsePerson(line: string): Person {
  const m = /^(.*?) <([^>]*)> (-?\d+) ([+-])(\d{2})(\d{2})$/.exec(line);
  if (!m) return { name: line, email: '', date: '' };
  const [, name, email, secs, sign, hh, mm] = m;
  return { name: name!, email: email!, date: isoWithOffset(Number(secs), sign!, Number(hh), Number(mm)) };
}

export function isoWithOffset(unixSeconds: number, sign: string, hh: number, mm: number): string {
  const offsetMin = (sign === '-' ? -1 : 1) * (hh * 60 + mm);
  const local = new Date((unixSeconds + offsetMin * 60) * 1000).toISOString().slice(0, 19);
  return `${local}${sign === '-' ? '-' : '+'}${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}`;
}

export function parseCommit(raw: Buffer): ParsedCommit {
  const text = raw.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = split < 0 ? text : text.slice(0, split);
  const message = split < 0 ? '' : text.slice(split + 2);
  const out: ParsedCommit = { tree: '', parents: [], author: parsePerson(''), committer: parsePerson(''), message };
  for (const line of headers.split('\n')) {
    const sp = line.indexOf(' ');
    const key = line.slice(0, sp);
    const value = line.slice(sp + 1);
    if (key === 'tree') out.tree = value;
    else if (key === 'parent') out.parents.push(value);
    else if (key === 'author') out.author = parsePerson(value);
    else if (key === 'committer') out.committer = parsePerson(value);
  }
  return out;
}
