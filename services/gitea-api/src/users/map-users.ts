import { giteaIdOf } from '@githost/gitea-ids';

/** Gitea's `User` (its swagger definition), every field it names. */
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

/** Go's zero time, which Gitea writes for a time it does not have. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * A githost user as Gitea's `User`. githost has no full names: the username stands in, so a tool
 * that writes `full_name <email>` as a git author (Renovate) writes a name. The email is shown
 * only when githost showed it (the caller's own, or to a site admin), as Gitea hides others'.
 */
export function giteaUserOf(user: { username: string; email?: string | null; is_admin?: boolean; created_at?: string | undefined }, publicUrl: string): GiteaUser {
  return {
    id: giteaIdOf('user', user.username),
    login: user.username,
    login_name: '',
    source_id: 0,
    full_name: user.username,
    email: user.email ?? '',
    avatar_url: '',
    html_url: `${publicUrl}/${encodeURIComponent(user.username)}`,
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
