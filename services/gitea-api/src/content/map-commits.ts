import type { components } from '@githost/api-types';

type Commit = components['schemas']['Commit'];

/** A githost commit as Gitea's `Commit` (its git part; githost does not link authors to accounts, so `author`/`committer` are null). */
export function giteaCommitOf(c: Commit, repo: { publicUrl: string; owner: string; name: string }) {
  const api = `${repo.publicUrl}/api/v1/repos/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`;
  const html = `${repo.publicUrl}/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`;
  return {
    url: `${api}/git/commits/${c.sha}`,
    sha: c.sha,
    created: c.committer.date,
    html_url: `${html}/-/commit/${c.sha}`,
    commit: {
      url: `${api}/git/commits/${c.sha}`,
      author: c.author,
      committer: c.committer,
      message: c.message,
      tree: { url: `${api}/git/trees/${c.tree}`, sha: c.tree, created: c.committer.date },
      verification: { verified: false, reason: 'gpg.error.not_signed_commit', signature: '', signer: null, payload: '' },
    },
    author: null,
    committer: null,
    parents: c.parents.map((sha) => ({ url: `${api}/git/commits/${sha}`, sha, created: c.committer.date })),
  };
}
