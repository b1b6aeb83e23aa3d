import type { accounts } from '@githost/protos';
import type { RepositoryService } from '../domain/repositories.js';
import { repositoryMessage } from './messages.js';

/** Authorize: NOT_FOUND `Repository not found` when owner/name does not exist. */
export function authorize(repositories: RepositoryService) {
  return async (req: accounts.AuthorizeRequest__Output): Promise<accounts.AuthorizeResponse> => {
    const { repository, permission } = await repositories.authorize(req.owner, req.name, { user_id: req.user_id, bootstrap_admin: req.bootstrap_admin });
    return { repository: repositoryMessage(repository), permission };
  };
}
