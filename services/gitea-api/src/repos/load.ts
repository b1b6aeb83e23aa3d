import { apiPath, sshCloneUrl, sshFactsOf } from '@githost/api-client';
import type { Repository } from '@githost/api-types';
import type { Config } from '../config.js';
import type { GatewayClient } from '../gateway-client.js';
import type { GithostPermission, RepositoryFacts } from './map-repos.js';

/**
 * Everything Gitea's `Repository` needs, asked of githost at once: the repository, the caller's
 * permission (anonymous callers have none to ask), whether it has a branch, the SSH port.
 * `hasBranch`, when it resolves true, already saw a branch of it (a pull request list's merge
 * facts found both branches of a pull request): no branch listing is asked then.
 */
export async function repositoryFacts(gateway: GatewayClient, config: Config, owner: string, name: string, known?: Repository, hasBranch?: Promise<boolean>): Promise<RepositoryFacts> {
  const params = { owner, repo: name };
  // One branch is enough to know it is not empty; the whole list would cross the wire on every call.
  const anyBranch = async () => (await gateway.get(apiPath('/api/repos/{owner}/{repo}/branches', params, '?per_page=1'))).branches.length > 0;
  const [repo, permission, notEmpty, ssh] = await Promise.all([
    known ?? gateway.get(apiPath('/api/repos/{owner}/{repo}', params)),
    permissionOf(gateway, owner, name),
    hasBranch ? hasBranch.then((seen) => seen || anyBranch()) : anyBranch(),
    sshFactsOf(config.sshHttpUrl),
  ]);
  return { repo, permission, empty: !notEmpty, sshUrl: ssh ? sshCloneUrl(config.publicUrl, ssh, repo.owner, repo.name) : '' };
}

/**
 * The caller's permission (null: anonymous): as the gateway signed it with an admitted read of
 * this repository (capped by the token's scopes, as `GET …/permission` answers it: no call), else asked.
 */
export function permissionOf(gateway: GatewayClient, owner: string, name: string): Promise<GithostPermission | null> {
  if (!gateway.signedIn) return Promise.resolve(null);
  const admitted = gateway.admittedRepo;
  if (admitted && admitted.owner.toLowerCase() === owner.toLowerCase() && admitted.name.toLowerCase() === name.toLowerCase()) return Promise.resolve(admitted.permission as GithostPermission);
  return gateway.get(apiPath('/api/repos/{owner}/{repo}/permission', { owner, repo: name })).then((p) => p.permission as GithostPermission);
}
