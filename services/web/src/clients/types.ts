// The API's answers as the pages read them (openapi/openapi.yaml is the source of truth). Where
// a shared package already declares the JSON shape (git-records: CONTRACT §5 git data), it is
// imported, never restated.
import type { CommitRecord, DiffEntry, TreeEntry } from '@githost/git-records';

export type { TreeEntry };
export type Commit = CommitRecord;
export type DiffFile = DiffEntry;

export interface Viewer {
  id: string | null;
  username: string;
  email: string | null;
  is_admin: boolean;
}

export interface Repository {
  id: string;
  owner: string;
  name: string;
  full_name: string;
  private: boolean;
  default_branch: string;
  description?: string | null;
  clone_url: string;
  created_at: string;
}

export interface Tree {
  ref: string;
  commit: string;
  path: string;
  entries: TreeEntry[];
}

export interface Blob {
  ref: string;
  commit: string;
  path: string;
  sha: string;
  size: number;
  content: string;
  encoding: 'utf-8' | 'base64';
}

export interface Commits {
  ref: string;
  commits: Commit[];
}

export interface Branch {
  name: string;
  sha: string;
  isDefault: boolean;
}

export interface Branches {
  branches: Branch[];
  default_branch: string;
}

export interface Tag {
  name: string;
  sha: string;
  tag_sha?: string;
}

export interface Comparison {
  base_sha: string;
  head_sha: string;
  merge_base: string;
  commits: Commit[];
  diff: DiffFile[];
  diff_truncated: boolean;
}

export interface Activity {
  id: string;
  action: string;
  user_id: string | null;
  data: Record<string, unknown>;
  created_at: string;
}

export type TokenScope = 'read' | 'write' | 'admin';

export interface TokenInfo {
  id: string;
  name: string | null;
  scopes: TokenScope[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

export interface IssuedToken extends TokenInfo {
  token: string;
}

/** `POST /api/sessions` (web-auth's contract). */
export interface IssuedSession {
  id: string;
  secret: string;
  expires_at: string;
  idle_expires_at: string;
}

export interface SessionInfo {
  id: string;
  current?: boolean;
  created_at?: string;
  last_used_at?: string | null;
  expires_at?: string;
  user_agent?: string | null;
  address?: string | null;
}
