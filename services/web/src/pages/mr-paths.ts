import { repoUrl } from './paths.js';

/** The merge-request, compare and settings pages' URLs (README "The web": site map). */
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
  settings: (o: string, r: string, section = '') => repoUrl(o, r, `/-/settings${section ? `/${section}` : ''}`),
  webhook: (o: string, r: string, id: string, rest = '') => repoUrl(o, r, `/-/settings/webhooks/${encodeURIComponent(id)}${rest}`),
};

export const adminPages = {
  users: () => '/-/admin/users',
  user: (u: string, rest = '') => `/-/admin/users/${encodeURIComponent(u)}${rest}`,
};
