import { nameIndex } from '@githost/git-records';
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
 * Refs changed at once that are read again one by one; beyond this the whole table is read again
 * (a for-each-ref of many exact names costs about what a whole listing does: 1,000 names 0.3 s
 * at 110,000 refs, docs/decisions/many-refs-push.md#the-refs-cache).
 */
export const REREAD_AT_MOST = 64;

/**
 * Every ref of a repository, sorted by name, kept in memory. After a ref change this process
 * made, `changed` reads the changed refs again from git (one for-each-ref of their exact names)
 * and updates the table in place: at 110,000 refs refilling it whole took 0.5-1.5 s of git and
 * JavaScript after every merge (docs/decisions/many-refs-push.md#the-refs-cache). The changed
 * refs are read, not taken from the change, so two changes reported out of order still leave
 * what git holds. Concurrent readers during a fill share one `for-each-ref`; a change during a
 * fill is applied after it.
 */
export class RefsCache {
  /** In use order, the least recently read first; `count`: the table's refs once it is read. */
  private readonly entries = new Map<string, { generation: number; refs: Promise<RefTable>; count: number }>();
  private generation = 0;
  private readonly maxRefs: number;

  /**
   * `maxRefs`: refs kept across repositories (about 300 bytes each with their indexes); past it the
   * least recently read tables go, but never the one just read, however large.
   */
  constructor(opts: { maxRefs?: number } = {}) {
    this.maxRefs = opts.maxRefs ?? DEFAULT_MAX_REFS;
  }

  async list(gitDir: string): Promise<CachedRef[]> {
    return (await this.table(gitDir)).list;
  }

  /** A ref by full name, or undefined (a map lookup: repositories with thousands of tags resolve often). */
  async get(gitDir: string, name: string): Promise<CachedRef | undefined> {
    return (await this.table(gitDir)).byName.get(name);
  }

  /**
   * Which of `oids` some ref holds (its target, or what an annotated tag peels to), from an
   * index of the table's values kept with it: a push event's new commits follow from it
   * (PushEventRecorder's newCommitsWithoutWalk) without copying 110,000 values per merge.
   */
  async heldOf(gitDir: string, oids: readonly string[]): Promise<Set<string>> {
    const values = (await this.table(gitDir)).values();
    return new Set(oids.filter((oid) => values.has(oid)));
  }

  /** Drops the table: the next read lists every ref again. */
  invalidate(gitDir: string): void {
    this.entries.delete(gitDir);
  }

  /**
   * After this process changed `refs` (full names) of `gitDir`: a held table (or one being filled)
   * is brought up to date by reading those refs again; more than REREAD_AT_MOST, or a failed read,
   * drops it. A read started after this call waits for the update. Resolves to what those refs
   * hold now (a deleted one absent), or undefined when the table was dropped or not held (nobody
   * read the refs since the last drop, so no reader holds them either).
   */
  changed(gitDir: string, refs: readonly string[]): Promise<CachedRef[] | undefined> {
    const hit = this.entries.get(gitDir);
    if (!hit || refs.length === 0) return Promise.resolve(hit ? [] : undefined);
    const names = [...new Set(refs)];
    if (names.length > REREAD_AT_MOST) {
      this.invalidate(gitDir);
      return Promise.resolve(undefined);
    }
    const fresh = hit.refs.then(() => readRefs(gitDir, names));
    const updated = this.hold(gitDir, Promise.all([hit.refs, fresh]).then(([table, now]) => table.replace(names, now)));
    return updated.then(
      () => fresh,
      () => undefined,
    );
  }

  private table(gitDir: string): Promise<RefTable> {
    const hit = this.entries.get(gitDir);
    if (hit) {
      // Most recently read last: the first entries are the ones to let go.
      this.entries.delete(gitDir);
      this.entries.set(gitDir, hit);
      return hit.refs;
    }
    return this.hold(gitDir, readRefs(gitDir).then((list) => new RefTable(list)));
  }

  /** `refs` becomes `gitDir`'s table: counted once read, dropped if its read fails. */
  private hold(gitDir: string, refs: Promise<RefTable>): Promise<RefTable> {
    const generation = ++this.generation;
    const entry = { generation, refs, count: 0 };
    this.entries.delete(gitDir);
    this.entries.set(gitDir, entry);
    refs.then(
      (table) => {
        if (this.entries.get(gitDir) !== entry) return;
        entry.count = table.list.length;
        this.evictBeyond(gitDir);
      },
      () => {
        if (this.entries.get(gitDir)?.generation === generation) this.entries.delete(gitDir);
      },
    );
    return refs;
  }

  private evictBeyond(keep: string): void {
    let total = 0;
    for (const e of this.entries.values()) total += e.count;
    for (const [dir, e] of this.entries) {
      if (total <= this.maxRefs) break;
      if (dir === keep) continue;
      this.entries.delete(dir);
      total -= e.count;
    }
  }
}

/** About 60 MB of tables: one repository of 200,000 refs, or many small ones. */
export const DEFAULT_MAX_REFS = 200_000;

/**
 * The refs sorted by name (as for-each-ref sorts), by name, and their values counted. `list` is
 * never changed once handed out (a caller may hold it across awaits): `replace` makes a new one.
 */
class RefTable {
  readonly byName: Map<string, CachedRef>;
  private counts: Map<string, number> | undefined;

  constructor(public list: CachedRef[]) {
    this.byName = new Map(list.map((r) => [r.name, r]));
  }

  /** Every value some ref holds, counted; built on first use, then kept in step by `replace`. */
  values(): ReadonlyMap<string, number> {
    if (!this.counts) {
      this.counts = new Map();
      for (const r of this.list) this.count(r, 1);
    }
    return this.counts;
  }

  /** `names` now hold what `fresh` says (a name missing from it was deleted). */
  replace(names: readonly string[], fresh: readonly CachedRef[]): RefTable {
    const now = new Map(fresh.map((r) => [r.name, r]));
    const list = this.list.slice();
    for (const name of names) {
      const old = this.byName.get(name);
      const ref = now.get(name);
      // The list is in git's order (for-each-ref's, compareNames'), so the place of `name` is found by halving.
      if (old) {
        this.count(old, -1);
        this.byName.delete(name);
        list.splice(nameIndex(list, name), 1);
      }
      if (ref) {
        this.count(ref, 1);
        this.byName.set(name, ref);
        list.splice(nameIndex(list, name), 0, ref);
      }
    }
    this.list = list;
    return this;
  }

  private count(ref: CachedRef, by: 1 | -1): void {
    if (!this.counts) return;
    for (const oid of ref.peeled ? [ref.target, ref.peeled] : [ref.target]) {
      const n = (this.counts.get(oid) ?? 0) + by;
      if (n > 0) this.counts.set(oid, n);
      else this.counts.delete(oid);
    }
  }
}

/**
 * Every ref with its type, then the annotated tags peeled in one cat-file: asking for-each-ref
 * for `%(*objectname)` parses every ref's object, commits included (110,000 branches and 10,000
 * tags: 1.26 s, against 0.29 s for the refs and types and 0.24 s for the 10,000 peels;
 * timed alone, load 3-4), paid by every read after a drop. `only`: those exact names (the
 * refs a change touched), the same way.
 */
async function readRefs(gitDir: string, only?: readonly string[]): Promise<CachedRef[]> {
  const { stdout } = await runGit({ name: 'for-each-ref', flags: ['--format=%(objectname) %(objecttype) %(refname)', '--sort=refname'], args: only ? [...only] : [] }, { gitDir });
  // A pattern matches its name and the names below it (refs/heads/a matches refs/heads/a/b): only
  // exact names are kept. Ref names were validated (no glob characters) before they were changed.
  const exact = only && new Set(only);
  // Parsed by position, not by split: 110,000 lines in 20-100 ms against 150-260 (bench/RESULTS.md,
  // "The whole branch list streamed"); git refuses spaces and LFs in ref names.
  const text = stdout.toString('utf8');
  const refs: CachedRef[] = [];
  for (let at = 0; at < text.length; ) {
    let eol = text.indexOf('\n', at);
    if (eol < 0) eol = text.length;
    const afterTarget = text.indexOf(' ', at);
    const afterType = afterTarget < 0 ? -1 : text.indexOf(' ', afterTarget + 1);
    if (afterType >= 0 && afterType < eol) {
      const name = text.slice(afterType + 1, eol);
      if (!exact || exact.has(name)) refs.push({ target: text.slice(at, afterTarget), type: text.slice(afterTarget + 1, afterType), peeled: '', name });
    }
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
