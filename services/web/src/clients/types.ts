// The API's answers as the pages read them. Their shapes come from openapi/openapi.yaml through
// @githost/api-types, or from git-records where it already declares the JSON (CONTRACT §5 git
// data); only what the document does not describe is declared here.
import type { Comparison as ApiComparison, ResponseBody, Token } from '@githost/api-types';
import type { CommitRecord, DiffEntry, TreeEntry } from '@githost/git-records';

export type { Activity, Blob, Branch, Branches, Commits, Repository, SessionInfo, Tag, TokenInfo, TokenScope, Tree } from '@githost/api-types';
export type { TreeEntry };
export type Commit = CommitRecord;
export type DiffFile = DiffEntry;
/** `GET .../compare/{base}...{head}` with its commits and diff as git-records builds them (every
 *  field present; the document leaves the modes and blob ids optional). */
export type Comparison = Omit<ApiComparison, 'commits' | 'diff'> & { commits: Commit[]; diff: DiffFile[] };
/** A token as issued: its secret is shown once. */
export type IssuedToken = Token;
/** `POST /api/sessions` (web-auth's contract). */
export type IssuedSession = ResponseBody<'signIn', 201>;

export interface Viewer {
  id: string | null;
  username: string;
  email: string | null;
  is_admin: boolean;
}

