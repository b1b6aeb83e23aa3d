import { repoFieldsOf } from '@githost/identity';
import type { accounts } from '@githost/protos';
import type { Repository, User } from '../domain/types.js';

export const userMessage = (u: User): accounts.User => ({ id: u.id, username: u.username, email: u.email, is_admin: u.is_admin });

export function repositoryMessage(r: Repository): accounts.Repository {
  return { ...repoFieldsOf(r), description: r.description ?? '', created_at: r.created_at };
}
