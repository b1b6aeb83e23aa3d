import { giteaUserOf as giteaUserOfFacts, type GiteaUser, type GiteaUserFacts } from '@githost/gitea-ids';

export type { GiteaUser } from '@githost/gitea-ids';

/**
 * A githost user as Gitea's `User`. githost has no full names: the username stands in, so a tool
 * that writes `full_name <email>` as a git author (Renovate) writes a name. The email is shown
 * only when githost showed it (the caller's own, or to a site admin), as Gitea hides others'.
 */
export function giteaUserOf(user: Omit<GiteaUserFacts, 'full_name'>, publicUrl: string): GiteaUser {
  return giteaUserOfFacts({ ...user, full_name: user.username }, publicUrl);
}
