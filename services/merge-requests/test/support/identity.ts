import { randomUUID } from 'node:crypto';
import { encodeIdentity, type Identity, type Permission, type Principal } from '@githost/identity';

export const SECRET = 'merge-requests-test-secret-0123456789';

export interface RepoSpec {
  id: string;
  owner?: string;
  name?: string;
  private?: boolean;
  permission?: Permission;
  owner_id?: string;
  shard?: string;
}

/** Headers the gateway would add: a signed identity for `principal` on `repo`. */
export function identityHeaders(principal: Principal | null, repo: RepoSpec, secret = SECRET): Record<string, string> {
  const identity: Identity = {
    principal,
    repo: {
      id: repo.id,
      owner: repo.owner ?? 'alice',
      name: repo.name ?? 'proj',
      default_branch: 'main',
      private: repo.private ?? false,
      shard: repo.shard ?? 'default',
      permission: repo.permission ?? 'write',
      owner_id: repo.owner_id ?? 'u-alice',
    },
    request_id: randomUUID(),
    issued_at: Date.now(),
  };
  return { ...encodeIdentity(identity, secret), 'content-type': 'application/json' };
}

export const user = (id: string, username: string): Principal => ({ user_id: id, username, email: `${username}@example.com`, is_admin: false });
