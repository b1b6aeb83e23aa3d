import { notFound, validation } from '@githost/errors';
import { runGit } from './command.js';
import { GitError, NotFoundError } from './errors.js';
import { writeLooseObject } from './loose-object.js';
import { isFullOid } from '@githost/git-records/object-id';

export interface MergeTreeResult {
  clean: boolean;
  /** The merged tree (with conflict markers when not clean). */
  tree: string;
  conflicts: string[];
  /** No common history: nothing to merge, and no path to blame. */
  unrelated?: boolean;
}

/**
 * A real three-way merge without a worktree (CONTRACT §6): `git merge-tree --write-tree` (git >=
 * 2.38). Exit 0 is clean, exit 1 lists the conflicting paths; both are answers, not failures.
 */
export async function mergeTree(gitDir: string, ours: string, theirs: string, signal?: AbortSignal): Promise<MergeTreeResult> {
  let out;
  try {
    out = await runGit(
      { name: 'merge-tree', flags: ['--write-tree', '--name-only', '-z', '--no-messages'], args: [ours, theirs] },
      { gitDir, okExitCodes: [1], timeoutMs: 120_000, signal },
    );
  } catch (err) {
    if (err instanceof NotFoundError || (err instanceof GitError && /not something we can merge|bad object|not a valid/i.test(err.stderr))) {
      throw notFound('Commit not found');
    }
    if (err instanceof GitError && /unrelated histories/i.test(err.stderr)) return { clean: false, tree: '', conflicts: [], unrelated: true };
    throw err;
  }
  const [tree, ...rest] = out.stdout.toString('utf8').split('\0');
  const conflicts = [...new Set(rest.filter((p) => p !== ''))];
  return { clean: out.exitCode === 0, tree: tree!, conflicts };
}

/**
 * merge-tree results started ahead of the WriteMerge that will likely ask for them (ResolveMergeTips
 * starts one alongside the ancestry walk a three-way merge needs, bench/RESULTS.md "Merge
 * requests"), each taken at most once and kept a short while only: the objects it wrote stay
 * unreferenced until a commit and a ref name them, and housekeeping may prune them some day.
 */
export class MergeTreesAhead {
  private readonly started = new Map<string, { result: Promise<MergeTreeResult>; timer: NodeJS.Timeout }>();

  constructor(
    private readonly keepMs = 30_000,
    private readonly max = 64,
  ) {}

  start(gitDir: string, ours: string, theirs: string): void {
    const key = `${gitDir}\0${ours}\0${theirs}`;
    if (this.started.has(key) || this.started.size >= this.max) return;
    const result = mergeTree(gitDir, ours, theirs);
    result.catch(() => undefined); // taken or not, a failure here is nobody's answer
    const timer = setTimeout(() => this.started.delete(key), this.keepMs);
    timer.unref();
    this.started.set(key, { result, timer });
  }

  /** The result started for this pair (once); undefined when none was, or it failed. */
  async take(gitDir: string, ours: string, theirs: string): Promise<MergeTreeResult | undefined> {
    const key = `${gitDir}\0${ours}\0${theirs}`;
    const entry = this.started.get(key);
    if (!entry) return undefined;
    this.started.delete(key);
    clearTimeout(entry.timer);
    return entry.result.catch(() => undefined);
  }

  forget(gitDir: string): void {
    for (const [key, entry] of this.started) {
      if (!key.startsWith(`${gitDir}\0`)) continue;
      clearTimeout(entry.timer);
      this.started.delete(key);
    }
  }
}

export interface Signature {
  name: string;
  email: string;
  timestamp: number;
}

// Characters git would strip from or choke on in an ident line.
// eslint-disable-next-line no-control-regex
const IDENT_FORBIDDEN = /[<>\x00-\x1f]/;

function checkSignature(s: Signature | null | undefined, what: string): Signature {
  if (!s || !s.name || IDENT_FORBIDDEN.test(s.name) || IDENT_FORBIDDEN.test(s.email ?? '')) throw validation(`Invalid ${what} signature`);
  if (!Number.isSafeInteger(Number(s.timestamp)) || Number(s.timestamp) < 0) throw validation(`Invalid ${what} timestamp`);
  return { name: s.name, email: s.email ?? '', timestamp: Number(s.timestamp) };
}

// What git trims from either end of an ident's name or email (ident.c `crud`, '.' included as git
// 2.39 does): an ident with one there is left to git's own commit-tree, so it comes out as git makes it.
// eslint-disable-next-line no-control-regex
const IDENT_CRUD_AT_AN_END = /^[\x00-\x20.,:;<>"\\']|[\x00-\x20.,:;<>"\\']$/;

/**
 * The commit `commit-tree` writes for `parents` in order (a merge: ours, then theirs; a squash:
 * ours alone), the exact message (commit-tree does not clean messages up) and author/committer at
 * `+0000` (seed §4 merge procedure step 5). Written by this process as git writes it (a test checks
 * the ids agree) when every field is one git would keep as it is; otherwise by `commit-tree` itself.
 */
export async function commitMerge(
  gitDir: string,
  tree: string,
  parents: string[],
  author: Signature | null | undefined,
  committer: Signature | null | undefined,
  message: string,
): Promise<string> {
  const a = checkSignature(author, 'author');
  const c = checkSignature(committer, 'committer');
  if (message.includes('\0')) throw validation('Invalid commit message');
  if (plainIdent(a) && plainIdent(c) && isFullOid(tree) && parents.every(isFullOid)) {
    const text = [`tree ${tree}`, ...parents.map((p) => `parent ${p}`), `author ${a.name} <${a.email}> ${a.timestamp} +0000`, `committer ${c.name} <${c.email}> ${c.timestamp} +0000`, '', message].join('\n');
    return writeLooseObject(gitDir, 'commit', Buffer.from(text, 'utf8'));
  }
  const { stdout } = await runGit(
    { name: 'commit-tree', flags: [...parents.map((p) => `-p${p}`), '-F', '-'], args: [tree] },
    {
      gitDir,
      stdin: message,
      env: {
        GIT_AUTHOR_NAME: a.name,
        GIT_AUTHOR_EMAIL: a.email,
        GIT_AUTHOR_DATE: `@${a.timestamp} +0000`,
        GIT_COMMITTER_NAME: c.name,
        GIT_COMMITTER_EMAIL: c.email,
        GIT_COMMITTER_DATE: `@${c.timestamp} +0000`,
      },
    },
  );
  return stdout.toString('utf8').trim();
}

/** A name and email git writes unchanged: nothing at either end that git trims, and an email at all. */
function plainIdent(s: Signature): boolean {
  return s.email !== '' && !IDENT_CRUD_AT_AN_END.test(s.name) && !IDENT_CRUD_AT_AN_END.test(s.email);
}
