import type { Commit, TreeEntry } from '@githost/api-types';
import { links } from '../http/links.js';

type Links = ReturnType<typeof links>;

/** githost's tree entry, as its API answers it. */
export type { TreeEntry };

/** Gitea's `ContentsResponse`. */
export interface GiteaContents {
  name: string;
  path: string;
  sha: string;
  last_commit_sha: string;
  type: 'file' | 'dir' | 'symlink' | 'submodule';
  size: number;
  encoding: 'base64' | null;
  content: string | null;
  target: string | null;
  url: string;
  html_url: string;
  git_url: string | null;
  download_url: string | null;
  submodule_git_url: string | null;
  _links: { self: string; git: string | null; html: string };
}

const typeOf = (entry: TreeEntry): GiteaContents['type'] => (entry.type === 'tree' ? 'dir' : entry.type === 'commit' ? 'submodule' : entry.mode === '120000' ? 'symlink' : 'file');

/**
 * One tree entry as Gitea's `ContentsResponse`: without content in a directory's listing, with
 * it (base64) when the path named a file or a symlink (whose `target` is the link). `ref` is the
 * ref the caller named (links keep it); `commit` the commit it resolved to, which stands for the
 * last commit that touched the path (githost's log does not filter by path).
 */
export function contentsOf(at: Links, entry: TreeEntry, ref: string, commit: string, bytes?: Buffer): GiteaContents {
  const type = typeOf(entry);
  const self = at.apiContents(entry.path, ref);
  const html = type === 'dir' ? at.tree(ref, entry.path) : at.blob(ref, entry.path);
  const git = type === 'dir' ? at.apiTree(entry.sha) : type === 'submodule' ? null : at.apiBlob(entry.sha);
  return {
    name: entry.name,
    path: entry.path,
    sha: entry.sha,
    last_commit_sha: commit,
    type,
    size: type === 'dir' || type === 'submodule' ? 0 : (entry.size ?? bytes?.length ?? 0),
    encoding: bytes ? 'base64' : null,
    content: bytes ? bytes.toString('base64') : null,
    target: type === 'symlink' && bytes ? bytes.toString('utf8') : null,
    url: self,
    html_url: html,
    git_url: git,
    download_url: type === 'file' || type === 'symlink' ? at.raw(ref, entry.path) : null,
    submodule_git_url: null,
    _links: { self, git, html },
  };
}

/** A blob answer's content as bytes (githost sends text as utf-8, anything else as base64). */
export function blobBytes(blob: { content: string; encoding: 'utf-8' | 'base64' }): Buffer {
  return Buffer.from(blob.content, blob.encoding === 'base64' ? 'base64' : 'utf8');
}

/** Gitea's `GitEntry` of `GET /git/trees/{sha}`: `path` from the listed tree's root. */
export function gitEntryOf(at: Links, entry: TreeEntry, under: string) {
  const path = under && entry.path.startsWith(`${under}/`) ? entry.path.slice(under.length + 1) : entry.path;
  return {
    path,
    mode: entry.mode,
    type: entry.type,
    size: entry.type === 'blob' ? (entry.size ?? 0) : 0,
    sha: entry.sha,
    url: entry.type === 'tree' ? at.apiTree(entry.sha) : entry.type === 'blob' ? at.apiBlob(entry.sha) : '',
  };
}

export type GiteaGitEntry = ReturnType<typeof gitEntryOf>;

/** Gitea's `GitTreeResponse`: one page of the entries. */
export function treeResponseOf(at: Links, sha: string, entries: GiteaGitEntry[], page: number, perPage: number) {
  const start = (page - 1) * perPage;
  return {
    sha,
    url: at.apiTree(sha),
    tree: entries.slice(start, start + perPage),
    truncated: start + perPage < entries.length,
    page,
    total_count: entries.length,
  };
}

/** Gitea's `CommitMeta`. */
const metaOf = (url: string, sha: string, created: string) => ({ url, sha, created });

/** What Gitea's commit list and commit show of each commit: its `stat`, `files` and `verification` query parameters. */
export interface CommitShows {
  stat: boolean;
  files: boolean;
  verification: boolean;
}

const NOT_SIGNED = { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' };

/**
 * Gitea's `Commit` with its `stats` and `files` (services/convert/git_commit.go ToCommit): each
 * `null` when not asked for, or when githost did not compute them for this commit
 * (docs/decisions/gitea-api.md#stats-and-files); `verification` `null` when not asked for.
 */
export function giteaCommitWithChangesOf(at: Links, commit: Commit, shows: CommitShows) {
  const base = giteaCommitOf(at, commit);
  return {
    ...base,
    commit: { ...base.commit, verification: shows.verification ? NOT_SIGNED : null },
    files: shows.files && commit.files ? commit.files.map((f) => ({ filename: f.filename, status: f.status })) : null,
    stats: shows.stat && commit.stats ? { total: commit.stats.total, additions: commit.stats.additions, deletions: commit.stats.deletions } : null,
  };
}

/**
 * A githost commit as Gitea's `Commit`: `author` and `committer` are Gitea users, which githost
 * does not tie commits to (null, as Gitea answers for an email it knows no user of).
 */
export function giteaCommitOf(at: Links, commit: Commit) {
  const created = commit.committer.date;
  return {
    url: at.apiCommit(commit.sha),
    sha: commit.sha,
    created,
    html_url: at.commit(commit.sha),
    commit: {
      url: at.apiCommit(commit.sha),
      author: { name: commit.author.name, email: commit.author.email, date: commit.author.date },
      committer: { name: commit.committer.name, email: commit.committer.email, date: commit.committer.date },
      message: commit.message,
      tree: metaOf(at.apiTree(commit.tree), commit.tree, created),
      verification: NOT_SIGNED as typeof NOT_SIGNED | null,
    },
    author: null,
    committer: null,
    parents: commit.parents.map((p) => metaOf(at.apiCommit(p), p, created)),
  };
}

export type GiteaCommit = ReturnType<typeof giteaCommitOf>;

/** Gitea's `PayloadCommit` of a branch's tip. */
export function payloadCommitOf(at: Links, commit: Commit) {
  return {
    id: commit.sha,
    message: commit.message,
    url: at.commit(commit.sha),
    author: { name: commit.author.name, email: commit.author.email, username: '' },
    committer: { name: commit.committer.name, email: commit.committer.email, username: '' },
    verification: null,
    timestamp: commit.committer.date,
    added: null,
    removed: null,
    modified: null,
  };
}

/** What githost's branch protection says of one branch, for Gitea's `Branch`. */
export interface BranchRules {
  protected: boolean;
  pattern: string;
  requiredApprovals: number;
  statusChecks: string[];
  canPush: boolean;
  canMerge: boolean;
}

/** Gitea's `Branch`. */
export function giteaBranchOf(at: Links, name: string, tip: Commit, rules: BranchRules) {
  return {
    name,
    commit: payloadCommitOf(at, tip),
    protected: rules.protected,
    required_approvals: rules.requiredApprovals,
    enable_status_check: rules.statusChecks.length > 0,
    status_check_contexts: rules.statusChecks,
    user_can_push: rules.canPush,
    user_can_merge: rules.canMerge,
    effective_branch_protection_name: rules.pattern,
  };
}

/** Gitea's `Tag` (githost shows tags peeled: the message of an annotated tag is not kept). */
export function giteaTagOf(at: Links, publicUrl: string, owner: string, repo: string, tag: { name: string; sha: string; tag_sha?: string }, created: string) {
  const archive = `${publicUrl}/api/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/archive/${tag.name.split('/').map(encodeURIComponent).join('/')}`;
  return {
    name: tag.name,
    message: '',
    id: tag.tag_sha ?? tag.sha,
    commit: metaOf(at.apiCommit(tag.sha), tag.sha, created),
    zipball_url: `${archive}.zip`,
    tarball_url: `${archive}.tar.gz`,
  };
}
