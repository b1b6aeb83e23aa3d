import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatfilePool } from './catfile-pool.js';
import { GitCancelledError } from './errors.js';

/**
 * The queue of git's default revision walk (`rev-list <tip>`, `git log`'s default order, which
 * docs/contract.md promises for the log): the commit with the newest committer date comes out
 * next; on a tie the one queued first (git's commit_list_insert_by_date and its prio_queue both
 * keep insertion order among equal dates). Each commit is queued once, when first reached.
 */
export class DateOrderQueue {
  private readonly queue: Array<{ oid: string; time: number }> = [];
  private readonly seen = new Set<string>();

  /** Queues `oid` unless it was queued before; false when it was. */
  add(oid: string, time: number): boolean {
    if (this.seen.has(oid)) return false;
    this.seen.add(oid);
    // Small queues (a page of the log, 20 new commits): a sorted insert is enough.
    let at = this.queue.findIndex((q) => q.time < time);
    if (at < 0) at = this.queue.length;
    this.queue.splice(at, 0, { oid, time });
    return true;
  }

  has(oid: string): boolean {
    return this.seen.has(oid);
  }

  next(): string | undefined {
    return this.queue.shift()?.oid;
  }
}

/** Pages longer than this (offset + limit) are left to rev-list; browse asks at most 101. */
export const LOG_WALK_MAX_COMMITS = 200;
/** Commits a walk reads at most (the page, the queue beyond it, the reads ahead) before rev-list answers. */
const LOG_WALK_READ_BUDGET = 4 * LOG_WALK_MAX_COMMITS;
/** Commit-graph files keep 34 bits of a commit date; git orders a later date differently with one. */
const MAX_EXACT_DATE = 2 ** 34;

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const DATE_AFTER_EMAIL = /^ (\d+) [+-]\d{4}$/;

interface WalkNode {
  parents: string[];
  time: number;
}

/**
 * A commit's parents and the date git's walk orders it by, read as git's parse_commit_buffer and
 * parse_commit_date do (tree line, parent lines, author line, committer line; the number after the
 * committer line's last `>`); undefined for anything git might read differently, so rev-list
 * answers for it.
 */
export function walkNodeOf(raw: Buffer): WalkNode | undefined {
  const text = raw.toString('latin1');
  const end = text.indexOf('\n\n');
  const lines = (end < 0 ? text : text.slice(0, end)).split('\n');
  if (!lines[0]?.startsWith('tree ') || !OID.test(lines[0].slice(5))) return undefined;
  let i = 1;
  const parents: string[] = [];
  for (; lines[i]?.startsWith('parent '); i++) {
    const parent = lines[i]!.slice(7);
    if (!OID.test(parent)) return undefined;
    parents.push(parent);
  }
  if (!lines[i]?.startsWith('author') || !lines[i + 1]?.startsWith('committer')) return undefined;
  const committer = lines[i + 1]!;
  const date = DATE_AFTER_EMAIL.exec(committer.slice(committer.lastIndexOf('>') + 1));
  if (!committer.includes('>') || !date) return undefined;
  const time = Number(date[1]);
  if (!(time < MAX_EXACT_DATE)) return undefined;
  return { parents, time };
}

/** Files that change the parents git sees beyond what the objects say (docs: gitrepository-layout). */
const PARENT_OVERRIDES = ['shallow', join('info', 'grafts')];

async function parentsOverridden(gitDir: string): Promise<boolean> {
  const present = await Promise.all(PARENT_OVERRIDES.map((f) => access(join(gitDir, f)).then(() => true, () => false)));
  return present.some(Boolean);
}

/**
 * `rev-list --max-count=<limit> --skip=<offset> <tip>` with the objects, walked through the
 * cat-file pool instead of a spawned rev-list (docs/decisions/gateway-serves-warm-reads.md#cold-reads):
 * one process held for the walk, a round trip when a step reaches unread parents (reading ahead
 * along first parents, at most as many as the page again over the walk), and the commits read on
 * the way are the page's objects. Undefined when git might answer differently or
 * the walk would read too much: the tip is not a commit or is missing, a commit is missing or
 * parsed differently by git (walkNodeOf), the repository is shallow or grafted, the page is
 * longer than LOG_WALK_MAX_COMMITS or the reads exceed their budget. Then rev-list answers.
 */
export async function walkLog(
  pool: CatfilePool,
  gitDir: string,
  tip: string,
  limit: number,
  offset: number,
  signal?: AbortSignal,
): Promise<Array<{ oid: string; raw: Buffer }> | undefined> {
  if (offset + limit > LOG_WALK_MAX_COMMITS || signal?.aborted) return undefined;
  if (await parentsOverridden(gitDir)) return undefined;
  return pool.with(gitDir, async (p) => {
    const raws = new Map<string, Buffer>();
    const nodes = new Map<string, WalkNode>();
    // Reads every answer of one round trip (so the process stays in step), then says whether each
    // of `needed` came back as a commit git would read as walkNodeOf does. Other names are read
    // ahead (`<oid>~<n>`): whatever of them is a commit is kept, the rest is ignored.
    const read = async (needed: string[], ahead: string[]): Promise<boolean> => {
      const names = [...needed, ...ahead];
      p.send(names.map((n) => ['contents', n] as ['contents', string]));
      let ok = true;
      for (let i = 0; i < names.length; i++) {
        const h = await p.readHeader();
        const raw = h ? await p.readBody(h.size) : undefined;
        const node = h?.type === 'commit' ? walkNodeOf(raw!) : undefined;
        if (node && (i >= needed.length || h!.oid === needed[i])) {
          raws.set(h!.oid, raw!);
          nodes.set(h!.oid, node);
        } else if (i < needed.length) ok = false;
      }
      if (signal?.aborted) throw new GitCancelledError('log walk cancelled');
      return ok;
    };
    // The tip as rev-list takes it: a tag is peeled to its commit.
    p.send([['info', `${tip}^{commit}`]]);
    const peeled = (await p.readHeader())?.oid;
    if (!peeled || !(await read([peeled], []))) return undefined;
    let reads = 1;
    let aheadLeft = offset + limit;
    const queue = new DateOrderQueue();
    queue.add(peeled, nodes.get(peeled)!.time);
    const out: Array<{ oid: string; raw: Buffer }> = [];
    let shown = 0;
    for (let oid = queue.next(); oid !== undefined && out.length < limit; oid = queue.next()) {
      if (shown++ >= offset) out.push({ oid, raw: raws.get(oid)! });
      // The last commit's parents are read too: rev-list reads a commit's parents before showing
      // it, so a missing one fails the page there as well.
      const { parents } = nodes.get(oid)!;
      const unread = [...new Set(parents.filter((q) => !nodes.has(q) && !queue.has(q)))];
      if (unread.length > 0) {
        // One round trip a step would be one a commit; the first parent's own first parents,
        // named `<parent>~<n>`, come in the same one, so a straight line of history costs one.
        const ahead = Math.min(aheadLeft, offset + limit - shown);
        aheadLeft -= ahead;
        const names = Array.from({ length: ahead }, (_, n) => `${unread[0]}~${n + 1}`);
        reads += unread.length + ahead;
        if (reads > LOG_WALK_READ_BUDGET || !(await read(unread, names))) return undefined;
      }
      for (const q of parents) if (nodes.has(q)) queue.add(q, nodes.get(q)!.time);
    }
    return out;
  });
}
