import { runGit } from './command.js';

export interface CachedRef {
  name: string;
  /** Object the ref points at (a tag object for annotated tags). */
  target: string;
  /** For annotated tags, what the tag peels to; '' otherwise. */
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

async function readRefs(gitDir: string): Promise<CachedRef[]> {
  const { stdout } = await runGit(
    { name: 'for-each-ref', flags: ['--format=%(objectname) %(objecttype) %(*objectname) %(refname)', '--sort=refname'] },
    { gitDir },
  );
  const refs: CachedRef[] = [];
  for (const line of stdout.toString('utf8').split('\n')) {
    if (line === '') continue;
    // "%(*objectname)" is empty for non-tags, which leaves two spaces in a row.
    const [target, type, peeled, ...rest] = line.split(' ');
    refs.push({ target: target!, type: type!, peeled: peeled ?? '', name: rest.join(' ') });
  }
  return refs;
}
