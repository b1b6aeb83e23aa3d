import type { accounts } from '@githost/protos';
import type { RepositoryService } from '../domain/repositories.js';
import { repositoryMessage } from './messages.js';

/** GetRepository: NOT_FOUND `Repository not found` when the id is unknown. */
export function getRepository(repositories: RepositoryService) {
  return async (req: accounts.GetRepositoryRequest__Output): Promise<accounts.GetRepositoryResponse> => ({
    repository: repositoryMessage(await repositories.byId(req.id)),
  });
}
