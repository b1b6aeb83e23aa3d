import { encodePath } from '@githost/api-client';

/**
 * The addresses Gitea's JSON links to, on the public address: the web's pages
 * (services/web/README.md#site-map) for `html_url`, this API's own paths for `url`.
 */
export function links(publicUrl: string, owner: string, name: string) {
  const repo = `${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  const withPath = (ref: string, path: string) => encodePath(ref) + (path ? `/${encodePath(path)}` : '');
  return {
    html: `${publicUrl}/${repo}`,
    api: `${publicUrl}/api/v1/repos/${repo}`,
    tree: (ref: string, path = '') => `${publicUrl}/${repo}/-/tree/${withPath(ref, path)}`,
    blob: (ref: string, path: string) => `${publicUrl}/${repo}/-/blob/${withPath(ref, path)}`,
    raw: (ref: string, path: string) => `${publicUrl}/${repo}/-/raw/${withPath(ref, path)}`,
    commit: (sha: string) => `${publicUrl}/${repo}/-/commit/${encodeURIComponent(sha)}`,
    apiContents: (path: string, ref: string) => `${publicUrl}/api/v1/repos/${repo}/contents/${encodePath(path)}?ref=${encodeURIComponent(ref)}`,
    apiBlob: (sha: string) => `${publicUrl}/api/v1/repos/${repo}/git/blobs/${sha}`,
    apiTree: (sha: string) => `${publicUrl}/api/v1/repos/${repo}/git/trees/${sha}`,
    apiCommit: (sha: string) => `${publicUrl}/api/v1/repos/${repo}/git/commits/${sha}`,
  };
}
