import type { Repository } from '@githost/api-types';
import { giteaRepositoryOf as giteaRepositoryOfFacts, type GiteaRepository, type GithostPermission } from '@githost/gitea-ids';
import { giteaUserOf } from '../users/map-users.js';

export { giteaPermissionOf, type GiteaRepository, type GithostPermission } from '@githost/gitea-ids';

/** What Gitea's `Repository` is made of: githost's repository, the caller's permission on it
 *  (null: anonymous), whether it has any branch, and its SSH clone URL ('' without SSH). */
export interface RepositoryFacts {
  repo: Repository;
  permission: GithostPermission | null;
  empty: boolean;
  sshUrl: string;
}

/** A githost repository as Gitea's `Repository`, with everything this API knows of it. */
export function giteaRepositoryOf({ repo, permission, empty, sshUrl }: RepositoryFacts, publicUrl: string): GiteaRepository {
  return giteaRepositoryOfFacts(
    { ...repo, ssh_url: sshUrl, empty, permission },
    publicUrl,
    giteaUserOf({ username: repo.owner }, publicUrl),
  );
}

/** Gitea's `SearchResults` (`GET /repos/search`). */
export function searchResultsOf(data: GiteaRepository[]): { ok: true; data: GiteaRepository[] } {
  return { ok: true, data };
}
