import { apiPath, sshCloneUrl, sshFactsOf } from '@githost/api-client';
import type { Repository } from '@githost/api-types';
import type { Config } from '../config.js';
import type { GatewayClient } from '../gateway-client.js';
import type { GithostPermission, RepositoryFacts } from './map-repos.js';

/**
 * Everything Gitea's `Repository` needs, asked of githost at once: the repository, the caller's
 * permission (anonymous callers have none to ask), whether it has a branch, the SSH port.
 */
export async function repositoryFacts(gateway: GatewayClient, config: Config, owner: string, name: string, known?: Repository): Promise<RepositoryFacts> {
  const params = { owner, repo: name };
  const [repo, permission, branches, ssh] = await Promise.all([
    known ?? gateway.get(apiPath('/api/repos/{owner}/{repo}', params)),
    gateway.signedIn ? gateway.get(apiPath('/api/repos/{owner}/{repo}/permission', params)).then((p) => p.permission as GithostPermission) : Promise.resolve(null),
    // One branch is enough to know it is not empty; the whole list would cross the wire on every call.
    gateway.get(apiPath('/api/repos/{owner}/{repo}/branches', params, '?per_page=1')),
    sshFactsOf(config.sshHttpUrl),
  ]);
  return { repo, permission, empty: branches.branches.length === 0, sshUrl: ssh ? sshCloneUrl(config.publicUrl, ssh, repo.owner, repo.name) : '' };
}
