import type { accounts } from '@githost/protos';
import type { Repository, User } from '../domain/types.js';

export const userMessage = (u: User): accounts.User => ({ id: u.id, username: u.username, email: u.email, is_admin: u.is_admin });

export function repositoryMessage(r: Repository): accounts.Repository {
  return {
    id: r.id,
    owner: r.owner,
    name: r.name,
    default_branch: r.default_branch,
    private: r.private,
    shard: r.shard,
    description: r.description ?? '',
    owner_id: r.owner_id,
    created_at: r.created_at,
  };
}
