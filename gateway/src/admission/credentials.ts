import { LFS_ACTION_SCHEME } from '@githost/identity';

/**
 * Parses the Authorization header. Bearer carries a token (the API); Basic carries
 * `<username>:<token>` (git transport). As GitHub does for tokens, the Basic username is not
 * checked against the token's owner: the token alone identifies the caller, so
 * `git clone http://anything:<token>@host/...` works. A Basic credential with an empty password
 * takes the username as the token (`http://<token>@host/...`). Either scheme is accepted on
 * every route, so a git credential helper's answer also works with curl on the API.
 */
export type Credential = { kind: 'none' } | { kind: 'token'; token: string } | { kind: 'lfs-action'; grant: string } | { kind: 'malformed' };

const MAX_TOKEN_LENGTH = 1024;
const MAX_GRANT_LENGTH = 8192;

export function parseAuthorization(header: string | undefined): Credential {
  if (header === undefined || header.trim() === '') return { kind: 'none' };
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(header);
  if (!match) return { kind: 'malformed' };
  const scheme = match[1]!.toLowerCase();
  const value = match[2]!;
  let token: string | undefined;
  // An LFS batch answer's grant (docs/decisions/lfs.md), checked by signature, not by accounts.
  if (scheme === LFS_ACTION_SCHEME.toLowerCase()) return value.length <= MAX_GRANT_LENGTH ? { kind: 'lfs-action', grant: value } : { kind: 'malformed' };
  if (scheme === 'bearer' || scheme === 'token') token = value;
  else if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) token = decoded;
    else token = decoded.slice(colon + 1) || decoded.slice(0, colon);
  }
  if (!token || token.length > MAX_TOKEN_LENGTH || /[\s\0]/.test(token)) return { kind: 'malformed' };
  return { kind: 'token', token };
}
