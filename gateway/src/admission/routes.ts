import type { UpstreamName } from '../config.js';

/**
 * The gateway's route table (docs/architecture.md): which service answers a path, whether a
 * credential is required, and which repository the path names. Paths are forwarded unchanged.
 */
export type AuthMode = 'required' | 'optional';

/** How a denial is worded: browse endpoints answer `Not found` (seed §4 browsing rule 1), git
 *  transport prompts for credentials, everything else says `Repository not found`. `web`: the
 *  site's pages, which authenticate through the API themselves. `oauth`: the OAuth2 provider's
 *  protocol endpoints, whose Authorization header is the client's or the access token's and goes
 *  to the provider as sent (docs/decisions/oauth2-provider.md#paths). `gitea`: Gitea's API under
 *  /api/v1, a face that calls githost's API through the gateway with the caller's credential,
 *  which goes to it as sent (docs/decisions/gitea-api.md#a-face-over-the-api). */
export type Surface = 'api' | 'browse' | 'git' | 'web' | 'oauth' | 'gitea';

export interface RouteMatch {
  upstream: UpstreamName;
  auth: AuthMode;
  surface: Surface;
  /** The `{owner}/{repo}` the path names, percent-decoded; absent on routes without one. */
  repo?: { owner: string; name: string };
  /** Git push (receive-pack, including its ref advertisement): needs write access. */
  push?: boolean;
  /** An LFS object endpoint (download, upload, verify): the one object an action grant may name. */
  lfsObject?: { oid: string; write: boolean };
  /** A Git LFS route (batch, objects, locks): where an LFS grant may be presented. */
  lfs?: boolean;
  /** A Gitea read of repository content whose answer depends only on the repository's refs and the
   *  URL: kept and answered at the edge as browse's are (docs/decisions/gitea-api.md#warm-reads-at-the-edge). */
  edgeRead?: boolean;
  /** An `edgeRead` whose answer also shows the repository's merge requests and settings and the
   *  caller's permission (Gitea's pull request list): kept by the facts version too, per permission
   *  (docs/decisions/pulls-at-the-edge.md). */
  edgeFacts?: boolean;
}

const READ_METHODS = new Set(['GET', 'HEAD']);

// Git LFS (git-lfs docs/api) under the git transport path: the batch API, the object endpoints its
// actions point at, and the locking API.
const LFS_PATH = /^\/([^/]+)\/([^/]+)\.git\/info\/lfs\/(objects\/batch|objects\/[^/]+|objects\/[^/]+\/verify|locks|locks\/verify|locks\/[^/]+\/unlock)$/;
const REPO_PATH = /^\/api\/repos\/([^/]+)\/([^/]+)(\/.*)?$/;
const GIT_PATH = /^\/([^/]+)\/([^/]+)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;
const BROWSE_REST = /^\/(?:(?:tree|blob|raw|commits|commit|compare)(?:\/.*)?|branches|tags)$/;
// Commit statuses live with merge requests. `commits/{ref}/status(es)` is matched before the
// browse commit log, so a branch whose name ends in `/status` or `/statuses` has no commit log
// at those paths (GitHub's routes shadow such names the same way; docs/decisions/commit-statuses.md).
const STATUS_READ = /^\/commits\/.+\/status(?:es)?$/;
const STATUS_WRITE = /^\/statuses\/[^/]+$/;
const ARCHIVE = /^\/archive\/.+\.(?:tar\.gz|zip)$/;
const USER_REPOS = /^\/api\/users\/([^/]+)\/repos$/;
const GITEA_REPO_PATH = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)(\/.*)?$/;
// The face's reads made only of browse answers (services/gitea-api/README.md#why-it-is-fast): not
// `branches`, whose `user_can_push` is the caller's, nor `commits/{ref}/status(es)`, which are not refs.
const GITEA_CONTENT_READ = /^\/(?:contents(?:\/.*)?|raw\/.+|git\/(?:trees|commits)\/[^/]+|commits|tags|compare\/.+)$/;
// The pull request list: made of merge requests, the repository's settings and its refs alone.
const GITEA_PULL_LIST = '/pulls';
/** Gitea's query forms of a credential (decoded as the face's query parser decodes them), which only the face reads. */
function hasQueryCredential(query: string): boolean {
  if (query === '') return false;
  const params = new URLSearchParams(query);
  return params.has('token') || params.has('access_token');
}

function decodeSegment(segment: string): string | undefined {
  try {
    const decoded = decodeURIComponent(segment);
    // A decoded slash or NUL would make a different path than the one routed.
    return decoded.length > 0 && !/[/\0]/.test(decoded) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Splits the request target exactly as the services will see it: no URL parsing, which would
 * read `//host/...` as an authority and resolve `..`, and so route on a different path than the
 * one forwarded. A target that is not an origin-form path (`/...`, not `//...`) has no route.
 */
export function splitTarget(url: string): { path: string; query: string } | undefined {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (!path.startsWith('/') || path.startsWith('//')) return undefined;
  return { path, query: q < 0 ? '' : url.slice(q + 1) };
}

/** `path` is the raw URL path without the query string; `query` the raw query string. */
export function matchRoute(method: string, path: string, query = ''): RouteMatch | undefined {
  const read = READ_METHODS.has(method);
  const optionalOnRead: AuthMode = read ? 'optional' : 'required';

  const git = GIT_PATH.exec(path);
  if (git) {
    const owner = decodeSegment(git[1]!);
    const name = decodeSegment(git[2]!);
    if (!owner || !name) return undefined;
    const push = git[3] === 'git-receive-pack' || (git[3] === 'info/refs' && new URLSearchParams(query).get('service') === 'git-receive-pack');
    return { upstream: 'git-storage', auth: 'optional', surface: 'git', repo: { owner, name }, push };
  }

  const lfs = LFS_PATH.exec(path);
  if (lfs) {
    const owner = decodeSegment(lfs[1]!);
    const name = decodeSegment(lfs[2]!);
    if (!owner || !name) return undefined;
    // Writes (an upload, verify, locks) need write access and the token's `write` scope; a batch
    // says whether it uploads only in its body, so git-storage checks that one itself.
    const push = method === 'PUT' || (method === 'POST' && lfs[3] !== 'objects/batch');
    const object = /^objects\/([^/]+)(?:\/verify)?$/.exec(lfs[3]!);
    const lfsObject = object && object[1] !== 'batch' ? { lfsObject: { oid: object[1]!, write: push } } : {};
    return { upstream: 'git-storage', auth: 'optional', surface: 'git', repo: { owner, name }, push, lfs: true, ...lfsObject };
  }

  // docs/decisions/oauth2-provider.md#paths: Gitea's paths of the provider, and OpenID discovery.
  if (path === '/.well-known/openid-configuration' || path.startsWith('/login/oauth/')) return { upstream: 'accounts', auth: 'optional', surface: 'oauth' };
  if (path === '/api/v1/user/applications/oauth2' || path.startsWith('/api/v1/user/applications/oauth2/')) return { upstream: 'accounts', auth: 'required', surface: 'api' };
  // docs/decisions/gitea-api.md: the rest of Gitea's API; each call it makes comes back through here.
  if (path === '/api/v1' || path.startsWith('/api/v1/')) return giteaRoute(read, path, query);
  if (path === '/api/admin' || path.startsWith('/api/admin/')) return { upstream: 'accounts', auth: 'required', surface: 'api' };
  if (path === '/api/user' || path.startsWith('/api/user/')) return { upstream: 'accounts', auth: 'required', surface: 'api' };
  // services/accounts/README.md#sessions: signing in needs no credential (it is how one gets one).
  if (path === '/api/sessions') return method === 'POST' ? { upstream: 'accounts', auth: 'optional', surface: 'api' } : undefined;
  // GET: the explore list of every repository the caller may read (docs/decisions/explore-lists.md).
  if (path === '/api/repos') return method === 'POST' ? { upstream: 'accounts', auth: 'required', surface: 'api' } : read ? { upstream: 'accounts', auth: 'optional', surface: 'api' } : undefined;
  if (path === '/api/users') return read ? { upstream: 'accounts', auth: 'optional', surface: 'api' } : undefined;
  const userRepos = USER_REPOS.exec(path);
  if (userRepos) return read && decodeSegment(userRepos[1]!) ? { upstream: 'accounts', auth: 'optional', surface: 'api' } : undefined;

  const m = REPO_PATH.exec(path);
  if (!m) return undefined;
  const owner = decodeSegment(m[1]!);
  const name = decodeSegment(m[2]!);
  if (!owner || !name) return undefined;
  const repo = { owner, name };
  const rest = m[3] ?? '';

  if (rest === '' || rest === '/') return { upstream: 'accounts', auth: optionalOnRead, surface: 'api', repo };
  // The caller's permission on it (docs/decisions/gitea-api.md#what-was-added-to-githosts-api).
  if (rest === '/permission') return read ? { upstream: 'accounts', auth: 'optional', surface: 'api', repo } : undefined;
  if (rest === '/collaborators' || rest.startsWith('/collaborators/')) return { upstream: 'accounts', auth: 'required', surface: 'api', repo };
  if (rest === '/branch-protections' || rest.startsWith('/branch-protections/')) return { upstream: 'accounts', auth: 'required', surface: 'api', repo };
  // Deploy keys (docs/decisions/ssh-keys.md): managed by the repository's admins only.
  if (rest === '/keys' || rest.startsWith('/keys/')) return { upstream: 'accounts', auth: 'required', surface: 'api', repo };
  if (STATUS_READ.test(rest)) return read ? { upstream: 'merge-requests', auth: 'optional', surface: 'api', repo } : undefined;
  if (STATUS_WRITE.test(rest)) return method === 'POST' ? { upstream: 'merge-requests', auth: 'required', surface: 'api', repo } : undefined;
  // Archives stream straight from the shard that holds the repository, read access as browse.
  if (ARCHIVE.test(rest)) return read ? { upstream: 'git-storage', auth: 'optional', surface: 'browse', repo } : undefined;
  if (BROWSE_REST.test(rest)) return read ? { upstream: 'browse', auth: 'optional', surface: 'browse', repo } : undefined;
  if (rest === '/merge-requests' || rest.startsWith('/merge-requests/')) {
    // seed §5: list and detail need no identity; everything else on merge requests does.
    return { upstream: 'merge-requests', auth: optionalOnRead, surface: 'api', repo };
  }
  if (rest === '/activity') return read ? { upstream: 'merge-requests', auth: 'optional', surface: 'api', repo } : undefined;
  // seed §5: all webhook endpoints require an identity, reads included.
  if (rest === '/webhooks' || rest.startsWith('/webhooks/')) return { upstream: 'webhooks', auth: 'required', surface: 'api', repo };
  return undefined;
}

/**
 * Gitea's API. A call under `/api/v1/repos/{owner}/{repo}` names that repository: admission looks
 * up the caller and their access without refusing (the face answers refusals in Gitea's shape) and
 * signs both for the face (a write's author check reads the caller from it:
 * docs/decisions/gitea-api.md#errors), and a content read may be answered at the edge
 * (docs/decisions/gitea-api.md#warm-reads-at-the-edge).
 */
function giteaRoute(read: boolean, path: string, query: string): RouteMatch {
  const route: RouteMatch = { upstream: 'gitea-api', auth: 'optional', surface: 'gitea' };
  const m = GITEA_REPO_PATH.exec(path);
  const owner = m && decodeSegment(m[1]!);
  const name = m && decodeSegment(m[2]!);
  if (!owner || !name) return route;
  const rest = m![3] ?? '';
  const edgeFacts = rest === GITEA_PULL_LIST;
  const edgeRead = read && (edgeFacts || GITEA_CONTENT_READ.test(rest)) && !hasQueryCredential(query);
  return { ...route, repo: { owner, name }, ...(edgeRead ? { edgeRead, ...(edgeFacts ? { edgeFacts } : {}) } : {}) };
}

// Everything under a `{owner}/{repo}.git` path is git's, served or not, never a page.
const GIT_REPO_PATH = /^\/[^/]+\/[^/]+\.git(?:\/|$)/;
const EDGE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The site (services/web/README.md#one-path-for-access-control): every path that is not the REST API, not git transport and not a
 * health or metrics path is a page of the web service. Asked only when `matchRoute` found nothing.
 */
export function matchSiteRoute(method: string, path: string): RouteMatch | undefined {
  if (path === '/api' || path.startsWith('/api/') || GIT_REPO_PATH.test(path) || EDGE_PATHS.has(path)) return undefined;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return undefined;
  return { upstream: 'web', auth: 'optional', surface: 'web' };
}
