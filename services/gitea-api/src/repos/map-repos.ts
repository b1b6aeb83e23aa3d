import type { Repository } from '@githost/api-types';
import { giteaIdOf, repositoryKey } from '@githost/gitea-ids';
import { links } from '../http/links.js';
import { giteaUserOf, type GiteaUser } from '../users/map-users.js';

export type GithostPermission = 'read' | 'write' | 'admin';

/** What Gitea's `Repository` is made of: githost's repository, the caller's permission on it
 *  (null: anonymous), whether it has any branch, and its SSH clone URL ('' without SSH). */
export interface RepositoryFacts {
  repo: Repository;
  permission: GithostPermission | null;
  empty: boolean;
  sshUrl: string;
}

export interface GiteaPermission {
  admin: boolean;
  push: boolean;
  pull: boolean;
}

/** Gitea's `Repository`, every field its swagger document names (parent and repo_transfer absent). */
export interface GiteaRepository {
  id: number;
  owner: GiteaUser;
  name: string;
  full_name: string;
  description: string;
  empty: boolean;
  private: boolean;
  fork: boolean;
  template: boolean;
  mirror: boolean;
  size: number;
  language: string;
  languages_url: string;
  html_url: string;
  url: string;
  link: string;
  ssh_url: string;
  clone_url: string;
  original_url: string;
  website: string;
  stars_count: number;
  forks_count: number;
  watchers_count: number;
  open_issues_count: number;
  open_pr_counter: number;
  release_counter: number;
  default_branch: string;
  archived: boolean;
  created_at: string;
  updated_at: string;
  archived_at: string;
  permissions: GiteaPermission;
  has_issues: boolean;
  has_wiki: boolean;
  has_pull_requests: boolean;
  has_projects: boolean;
  projects_mode: string;
  has_releases: boolean;
  has_packages: boolean;
  has_actions: boolean;
  ignore_whitespace_conflicts: boolean;
  allow_merge_commits: boolean;
  allow_rebase: boolean;
  allow_rebase_explicit: boolean;
  allow_squash_merge: boolean;
  allow_fast_forward_only_merge: boolean;
  allow_rebase_update: boolean;
  default_delete_branch_after_merge: boolean;
  default_merge_style: string;
  default_allow_maintainer_edit: boolean;
  avatar_url: string;
  internal: boolean;
  mirror_interval: string;
  mirror_updated: string;
  topics: string[];
  licenses: string[];
  object_format_name: 'sha1';
}

/** The epoch Gitea writes for `archived_at` and `mirror_updated` when a repository never was. */
const UNIX_EPOCH = '1970-01-01T00:00:00Z';

/** Gitea's `Permission` from githost's: an anonymous reader of a public repository pulls. */
export function giteaPermissionOf(permission: GithostPermission | null): GiteaPermission {
  return { admin: permission === 'admin', push: permission === 'write' || permission === 'admin', pull: true };
}

/**
 * A githost repository as Gitea's `Repository`. The units githost has: code and pull requests
 * (merge requests); issues, wiki, projects, releases, packages and actions are off, as on a Gitea
 * repository with those units disabled (docs/decisions/gitea-api.md#disabled-units). Merge styles:
 * githost merges with a merge commit, a squash or a fast-forward, never a rebase.
 */
export function giteaRepositoryOf({ repo, permission, empty, sshUrl }: RepositoryFacts, publicUrl: string): GiteaRepository {
  const at = links(publicUrl, repo.owner, repo.name);
  return {
    id: giteaIdOf('repository', repositoryKey(repo.id)),
    owner: giteaUserOf({ username: repo.owner }, publicUrl),
    name: repo.name,
    full_name: repo.full_name,
    description: repo.description ?? '',
    empty,
    private: repo.private,
    fork: false,
    template: false,
    mirror: false,
    size: 0,
    language: '',
    languages_url: `${at.api}/languages`,
    html_url: at.html,
    url: at.api,
    link: '',
    ssh_url: sshUrl,
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
    archived_at: UNIX_EPOCH,
    permissions: giteaPermissionOf(permission),
    has_issues: false,
    has_wiki: false,
    has_pull_requests: true,
    has_projects: false,
    projects_mode: 'all',
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
    mirror_updated: UNIX_EPOCH,
    topics: [],
    licenses: [],
    object_format_name: 'sha1',
  };
}

/** Gitea's `SearchResults` (`GET /repos/search`). */
export function searchResultsOf(data: GiteaRepository[]): { ok: true; data: GiteaRepository[] } {
  return { ok: true, data };
}
