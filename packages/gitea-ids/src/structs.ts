import { giteaIdOf, repositoryKey } from './ids.js';

/**
 * Gitea's `User` and `Repository` JSON (its swagger definitions, modules/structs user.go and
 * repo.go), one definition for the Gitea-compatible API and webhooks' Gitea payloads. Each caller
 * passes what it knows; a field it does not know is Gitea's zero value.
 */

/** Go's zero time, which Gitea writes for a time it does not have. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/** The epoch Gitea writes for `archived_at` and `mirror_updated` when a repository never was. */
const UNIX_EPOCH = '1970-01-01T00:00:00Z';

export interface GiteaUser {
  id: number;
  login: string;
  login_name: string;
  source_id: number;
  full_name: string;
  email: string;
  avatar_url: string;
  html_url: string;
  language: string;
  is_admin: boolean;
  last_login: string;
  created: string;
  restricted: boolean;
  active: boolean;
  prohibit_login: boolean;
  location: string;
  website: string;
  description: string;
  visibility: 'public' | 'limited' | 'private';
  followers_count: number;
  following_count: number;
  starred_repos_count: number;
  username: string;
}

export interface GiteaUserFacts {
  /** '' for nobody known: id 0 and no page. */
  username: string;
  full_name?: string;
  email?: string | null;
  is_admin?: boolean;
  created_at?: string | undefined;
}

/** A githost user as Gitea's `User`. */
export function giteaUserOf(user: GiteaUserFacts, publicUrl: string): GiteaUser {
  const known = user.username !== '';
  return {
    id: known ? giteaIdOf('user', user.username) : 0,
    login: user.username,
    login_name: '',
    source_id: 0,
    full_name: user.full_name ?? '',
    email: user.email ?? '',
    avatar_url: '',
    html_url: known ? `${publicUrl}/${encodeURIComponent(user.username)}` : '',
    language: '',
    is_admin: user.is_admin ?? false,
    last_login: ZERO_TIME,
    created: user.created_at ?? ZERO_TIME,
    restricted: false,
    active: true,
    prohibit_login: false,
    location: '',
    website: '',
    description: '',
    visibility: 'public',
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: user.username,
  };
}

export type GithostPermission = 'read' | 'write' | 'admin';

export interface GiteaPermission {
  admin: boolean;
  push: boolean;
  pull: boolean;
}

/** Gitea's `Permission` from githost's: an anonymous reader of a public repository pulls. */
export function giteaPermissionOf(permission: GithostPermission | null): GiteaPermission {
  return { admin: permission === 'admin', push: permission === 'write' || permission === 'admin', pull: true };
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

/** What githost knows of a repository: its uuid, owner and name always, the rest when the caller has it. */
export interface GiteaRepositoryFacts {
  id: string;
  owner: string;
  name: string;
  description?: string | null;
  private?: boolean;
  default_branch?: string;
  /** Without it, the web address plus `.git`. */
  clone_url?: string;
  /** '' without SSH. */
  ssh_url?: string;
  /** Whether it has no branch. */
  empty?: boolean;
  created_at?: string;
  /** The caller's permission on it; null: anonymous. */
  permission?: GithostPermission | null;
}

/**
 * A githost repository as Gitea's `Repository`. The units githost has: code and pull requests
 * (merge requests); issues, wiki, projects, releases, packages and actions are off, as on a Gitea
 * repository with those units disabled (docs/decisions/gitea-api.md#disabled-units). Merge styles:
 * githost merges with a merge commit, a squash or a fast-forward, never a rebase. `owner` is the
 * owner's `User` when the caller builds it otherwise than from the name alone.
 */
export function giteaRepositoryOf(repo: GiteaRepositoryFacts, publicUrl: string, owner: GiteaUser = giteaUserOf({ username: repo.owner }, publicUrl)): GiteaRepository {
  const path = `${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`;
  const html = `${publicUrl}/${path}`;
  const api = `${publicUrl}/api/v1/repos/${path}`;
  const created = repo.created_at ?? ZERO_TIME;
  return {
    id: giteaIdOf('repository', repositoryKey(repo.id)),
    owner,
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    description: repo.description ?? '',
    empty: repo.empty ?? false,
    private: repo.private ?? false,
    fork: false,
    template: false,
    mirror: false,
    size: 0,
    language: '',
    languages_url: `${api}/languages`,
    html_url: html,
    url: api,
    link: '',
    ssh_url: repo.ssh_url ?? '',
    clone_url: repo.clone_url ?? `${html}.git`,
    original_url: '',
    website: '',
    stars_count: 0,
    forks_count: 0,
    watchers_count: 0,
    open_issues_count: 0,
    open_pr_counter: 0,
    release_counter: 0,
    default_branch: repo.default_branch ?? '',
    archived: false,
    created_at: created,
    updated_at: created,
    archived_at: UNIX_EPOCH,
    permissions: giteaPermissionOf(repo.permission ?? null),
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
