import type { Repository } from '@githost/api-types';
import { giteaIdOf, repositoryKey } from '@githost/gitea-ids';
import { giteaUserOf } from '../users/map-users.js';

export type Permission = 'read' | 'write' | 'admin';

/**
 * A githost repository as Gitea's `Repository`, with the caller's `permissions`. githost has pull
 * requests (merge requests) and no issues, wiki, projects or releases: those units read as
 * disabled, as on a Gitea where they are switched off. Merges: a merge commit, squash and
 * fast-forward-only (Gitea's `rebase` style is not offered).
 */
export function giteaRepositoryOf(repo: Repository, publicUrl: string, permission: Permission = 'read') {
  const html = `${publicUrl}/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`;
  return {
    id: giteaIdOf('repository', repositoryKey(repo.id)),
    owner: giteaUserOf({ username: repo.owner }, publicUrl),
    name: repo.name,
    full_name: repo.full_name,
    description: repo.description ?? '',
    empty: false,
    private: repo.private,
    fork: false,
    template: false,
    parent: null,
    mirror: false,
    size: 0,
    language: '',
    languages_url: `${publicUrl}/api/v1/repos/${repo.full_name}/languages`,
    html_url: html,
    url: `${publicUrl}/api/v1/repos/${repo.full_name}`,
    link: '',
    ssh_url: '',
    clone_url: repo.clone_url,
    original_url: '',
    website: '',
    stars_count: 0,
    forks_count: 0,
    watchers_count: 0,
    open_issues_count: 0,
    open_pr_counter: 0,
    release_counter: 0,
    default_branch: repo.default_branch,
    archived: false,
    created_at: repo.created_at,
    updated_at: repo.created_at,
    archived_at: '1970-01-01T00:00:00Z',
    permissions: { admin: permission === 'admin', push: permission !== 'read', pull: true },
    has_issues: false,
    has_wiki: false,
    has_pull_requests: true,
    has_projects: false,
    has_releases: false,
    has_packages: false,
    has_actions: false,
    ignore_whitespace_conflicts: false,
    allow_merge_commits: true,
    allow_rebase: false,
    allow_rebase_explicit: false,
    allow_squash_merge: true,
    allow_fast_forward_only_merge: true,
    allow_rebase_update: false,
    default_delete_branch_after_merge: false,
    default_merge_style: 'merge',
    default_allow_maintainer_edit: false,
    avatar_url: '',
    internal: false,
    mirror_interval: '',
    object_format_name: 'sha1',
    mirror_updated: '0001-01-01T00:00:00Z',
    repo_transfer: null,
    topics: [] as string[],
  };
}
