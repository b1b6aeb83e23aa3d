import { validation } from '@githost/errors';
import { etagOf } from './etag.js';
import type { ObjectCache } from './object-cache.js';
import type { CommitChanges, ReadContext, RepositoryReader } from './ports.js';

/** The most commits git-storage reads the changes of in one call (storage.proto ListCommitChanges). */
const CHANGES_PER_CALL = 100;

/**
 * `stats` of the commit log and of one commit (docs/decisions/gitea-api.md#stats-and-files): false
 * when absent; `true` asks for each commit's `stats` and `files`; anything else, or given twice, is 400.
 */
export function parseCommitStats(raw: unknown): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw !== 'true') throw validation('stats must be true or false');
  return true;
}

interface Answer {
  etag: string;
  body(): Promise<string | ReadonlyArray<string | Buffer>>;
  headers?: Record<string, string>;
}

/**
 * An answer holding commit records (the log's `commits` or one commit) with each commit's
 * `stats` ({total, additions, deletions}, against its first parent) and `files` ([{filename,
 * status}], at most 300, `files_truncated` when it changed more), the fields GitHub's commit API
 * has. A commit's changes never change, so they are kept by commit id: a page asks git-storage
 * once, in one call, for the commits it has not seen yet. A commit git-storage left out (its
 * budget of changed files for one call ran out) shows neither field.
 */
export function withCommitChanges<T extends Answer>(reader: RepositoryReader, cache: ObjectCache, ctx: ReadContext, answer: T, commitsOf: (body: Record<string, unknown>) => Array<Record<string, unknown>>): T {
  const wrapped: T = {
    ...answer,
    etag: etagOf('changes', answer.etag),
    body: async () => {
      const parts = await answer.body();
      wrapped.headers = answer.headers;
      const text = typeof parts === 'string' ? parts : Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString('utf8');
      const body = JSON.parse(text) as Record<string, unknown>;
      const commits = commitsOf(body);
      const changes = await changesOf(reader, cache, ctx, commits.map((c) => String(c.sha)));
      for (const c of commits) {
        const kept = changes.get(String(c.sha));
        if (kept !== undefined) Object.assign(c, JSON.parse(kept));
      }
      return JSON.stringify(body);
    },
  };
  return wrapped;
}

function changesKey(oid: string): string {
  return `changes\0${oid}`;
}

async function changesOf(reader: RepositoryReader, cache: ObjectCache, ctx: ReadContext, oids: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const missing: string[] = [];
  for (const oid of new Set(oids)) {
    const kept = cache.get(changesKey(oid));
    if (kept !== undefined) out.set(oid, kept);
    else missing.push(oid);
  }
  for (let i = 0; i < missing.length; i += CHANGES_PER_CALL) {
    const got = await reader.listCommitChanges(ctx, missing.slice(i, i + CHANGES_PER_CALL));
    // A git-storage without ListCommitChanges (a rolling upgrade): the records without the fields.
    if (got === undefined) return out;
    for (const c of got) {
      const fields = JSON.stringify(changesFields(c));
      cache.set(changesKey(c.oid), fields);
      out.set(c.oid, fields);
    }
  }
  return out;
}

/** GitHub's names: `stats` {total, additions, deletions}, `files` [{filename, status}]. */
export function changesFields(c: CommitChanges) {
  return {
    stats: { total: c.additions + c.deletions, additions: c.additions, deletions: c.deletions },
    files: c.files.map((f) => ({ filename: f.path, status: f.status })),
    files_truncated: c.filesTruncated,
  };
}
