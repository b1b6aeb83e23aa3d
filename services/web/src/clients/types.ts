// The API's answers as the pages read them: every shape comes from openapi/openapi.yaml through
// @githost/api-types (the client answers each call with its operation's type, clients/api.ts).
import type { ResponseBody, Token } from '@githost/api-types';

export type { Activity, Blob, Branch, Branches, Commit, Commits, Comparison, DeployKey, DiffFile, Repository, SessionInfo, SshKey, Tag, TokenInfo, TokenScope, Tree, TreeEntry } from '@githost/api-types';
/** A token as issued: its secret is shown once. */
export type IssuedToken = Token;
/** `POST /api/sessions` (web-auth's contract). */
export type IssuedSession = ResponseBody<'signIn', 201>;
/** Who is asking (`GET /api/user`). */
export type Viewer = ResponseBody<'getAuthenticatedUser'>;

