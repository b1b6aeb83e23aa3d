import { encodePath } from '../clients/api.js';

/** The site's URLs in one place (services/web/README.md#site-map). Everything of the site's own is
 *  under `/-/`, which no user or repository name can be (names never start with `-`). */
export const site = {
  home: () => '/',
  signIn: (next?: string) => (next && next !== '/' ? `/-/sign-in?next=${encodeURIComponent(next)}` : '/-/sign-in'),
  signOut: () => '/-/sign-out',
  newRepo: () => '/-/new',
  settings: () => '/-/settings',
  sessions: () => '/-/settings/sessions',
  tokens: () => '/-/settings/tokens',
  keys: () => '/-/settings/keys',
  /** OAuth2 applications, one's own and those one authorised (docs/decisions/oauth2-provider.md). */
  applications: () => '/-/settings/applications',
  asset: (name: string) => `/-/static/${name}`,
  user: (username: string) => `/${encodeURIComponent(username)}`,
  /** The site's repositories (or users) anyone may browse, with a name filter and a page. */
  explore: (q = '', page = 1) => `/-/explore${listQuery(q, page)}`,
  exploreUsers: (q = '', page = 1) => `/-/explore/users${listQuery(q, page)}`,
};

function listQuery(q: string, page: number): string {
  const params = new URLSearchParams({ ...(q ? { q } : {}), ...(page > 1 ? { page: String(page) } : {}) }).toString();
  return params ? `?${params}` : '';
}

export function repoUrl(owner: string, name: string, rest = ''): string {
  return `/${encodeURIComponent(owner)}/${encodeURIComponent(name)}${rest}`;
}

const withPath = (ref: string, path: string) => encodePath(ref) + (path ? `/${encodePath(path)}` : '');

export const repoPages = {
  tree: (o: string, r: string, ref: string, path = '') => repoUrl(o, r, `/-/tree/${withPath(ref, path)}`),
  blob: (o: string, r: string, ref: string, path: string) => repoUrl(o, r, `/-/blob/${withPath(ref, path)}`),
  raw: (o: string, r: string, ref: string, path: string) => repoUrl(o, r, `/-/raw/${withPath(ref, path)}`),
  commits: (o: string, r: string, ref: string) => repoUrl(o, r, `/-/commits/${encodePath(ref)}`),
  commit: (o: string, r: string, sha: string) => repoUrl(o, r, `/-/commit/${encodeURIComponent(sha)}`),
  branches: (o: string, r: string) => repoUrl(o, r, '/-/branches'),
  tags: (o: string, r: string) => repoUrl(o, r, '/-/tags'),
  /** The branches and tags to switch to from a view (the ref switcher's menu on its own). */
  refs: (o: string, r: string, view: 'tree' | 'blob' | 'commits', ref: string, path = '') => repoUrl(o, r, `/-/refs?${new URLSearchParams({ view, ref, ...(path ? { path } : {}) }).toString()}`),
  archive: (o: string, r: string, ref: string, format: 'tar.gz' | 'zip') => repoUrl(o, r, `/-/archive/${encodePath(ref)}.${format}`),
  settings: (o: string, r: string, section = '') => repoUrl(o, r, `/-/settings${section ? `/${section}` : ''}`),
  webhook: (o: string, r: string, id: string, rest = '') => repoUrl(o, r, `/-/settings/webhooks/${encodeURIComponent(id)}${rest}`),
  /** One delivery of a webhook (`rest`: `/redeliver`). */
  delivery: (o: string, r: string, id: string, delivery: string, rest = '') => repoPages.webhook(o, r, id, `/deliveries/${encodeURIComponent(delivery)}${rest}`),
};

/** The merge-request and compare pages' URLs. */
export const mrPages = {
  list: (o: string, r: string, state?: string) => repoUrl(o, r, `/-/merge-requests${state && state !== 'open' ? `?state=${encodeURIComponent(state)}` : ''}`),
  show: (o: string, r: string, n: number | string) => repoUrl(o, r, `/-/merge-requests/${n}`),
  action: (o: string, r: string, n: number | string, action: string) => repoUrl(o, r, `/-/merge-requests/${n}/${action}`),
  create: (o: string, r: string) => repoUrl(o, r, '/-/merge-requests'),
  compare: (o: string, r: string, base?: string, head?: string) => {
    const q = new URLSearchParams();
    if (base) q.set('base', base);
    if (head) q.set('head', head);
    const s = q.toString();
    return repoUrl(o, r, `/-/compare${s ? `?${s}` : ''}`);
  },
};

export const adminPages = {
  users: () => '/-/admin/users',
  user: (u: string, rest = '') => `/-/admin/users/${encodeURIComponent(u)}${rest}`,
};

/** A `next=` target is only ever a path of this site (no open redirect). */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}
