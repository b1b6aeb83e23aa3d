import { OID_PATTERN } from '@githost/git-records/object-id';
import { runGit } from './command.js';

const OID = new RegExp(`^${OID_PATTERN}$`);

export interface CachedRef {
  name: string;
  /** Object the ref points at (a tag object for annotated tags). */
  target: string;
  /** For annotated tags, what the tag peels to in the end (`^{}`); '' otherwise. */
  peeled: string;
  /** Type of `target`. */
  type: string;
}

/**
 * Every ref of a repository, sorted by name, kept in memory until this process changes a ref of
 * that repository (push, UpdateRef) and invalidates it. Concurrent readers during a fill share
 * one `for-each-ref`; an invalidation during a fill discards that fill's result.
 */
export class RefsCache {
  private readonly entries = new Map<string, { generation: number; refs: Promise<RefTable> }>();
  private generation = 0;

  async list(gitDir: string): Promise<CachedRef[]> {
    return (await this.table(gitDir)).list;
  }

  /** A ref by full name, or undefined (a map lookup: repositories with thousands of tags resolve often). */
  async get(gitDir: string, name: string): Promise<CachedRef | undefined> {
    return (await this.table(gitDir)).byName.get(name);
  }

  invalidate(gitDir: string): void {
    this.entries.delete(gitDir);
  }

  private table(gitDir: string): Promise<RefTable> {
    const hit = this.entries.get(gitDir);
    if (hit) return hit.refs;
    const generation = ++this.generation;
    const refs = readRefs(gitDir).then((list) => ({ list, byName: new Map(list.map((r) => [r.name, r])) }));
    this.entries.set(gitDir, { generation, refs });
    refs.catch(() => {
      if (this.entries.get(gitDir)?.generation === generation) this.entries.delete(gitDir);
    });
    return refs;
  }
}

interface RefTable {
  list: CachedRef[];
  byName: Map<string, CachedRef>;
}

/**
 * Every ref with its type, then the annotated tags peeled in one cat-file: asking for-each-ref
 * for `%(*objectname)` parses every ref's object, commits included (110,000 branches and 10,000
 * tags: 1.26 s, against 0.29 s for the refs and types and 0.24 s for the 10,000 peels;
 * timed alone, load 3-4). The cache is refilled after every ref change, so a merge at that size
 * paid it each time (bench/RESULTS.md, "The refs axis at 100,000 refs").
 */
async function readRefs(gitDir: string): Promise<CachedRef[]> {
  const { stdout } = await runGit({ name: 'for-each-ref', flags: ['--format=%(objectname) %(objecttype) %(refname)', '--sort=refname'] }, { gitDir });
  // Parsed by position, not by split: 110,000 lines in 20-100 ms against 150-260 (bench/RESULTS.md,
  // "The whole branch list streamed"); git refuses spaces and LFs in ref names.
  const text = stdout.toString('utf8');
  const refs: CachedRef[] = [];
  for (let at = 0; at < text.length; ) {
    let eol = text.indexOf('\n', at);
    if (eol < 0) eol = text.length;
    const afterTarget = text.indexOf(' ', at);
    const afterType = afterTarget < 0 ? -1 : text.indexOf(' ', afterTarget + 1);
    if (afterType >= 0 && afterType < eol) refs.push({ target: text.slice(at, afterTarget), type: text.slice(afterTarget + 1, afterType), peeled: '', name: text.slice(afterType + 1, eol) });
    at = eol + 1;
  }
  const tags = refs.filter((r) => r.type === 'tag');
  if (tags.length === 0) return refs;
  const peeled = await peelTags(gitDir, [...new Set(tags.map((t) => t.target))]);
  for (const t of tags) t.peeled = peeled.get(t.target) ?? '';
  return refs;
}

/** What each tag object peels to in the end (`<tag>^{}`, as packed-refs and upload-pack's `^{}`
 *  lines give it): one `cat-file --batch-check`, the ids from for-each-ref, never a request. */
async function peelTags(gitDir: string, tagOids: string[]): Promise<Map<string, string>> {
  const { stdout } = await runGit({ name: 'cat-file', flags: ['--batch-check=%(objectname)'] }, { gitDir, stdin: tagOids.map((oid) => `${oid}^{}\n`).join('') });
  const lines = stdout.toString('utf8').split('\n');
  const peeled = new Map<string, string>();
  tagOids.forEach((oid, i) => {
    const line = lines[i] ?? '';
    // A tag whose target is missing answers "<input> missing": no peel, as for-each-ref left it empty.
    if (OID.test(line)) peeled.set(oid, line);
  });
  return peeled;
}
