import type { accounts } from '@githost/protos';
import type { AccountsDeps } from '../domain/deps.js';
import { repositoryById } from '../domain/repositories.js';
import { repositoryMessage } from './messages.js';

/** GetRepository: NOT_FOUND `Repository not found` when the id is unknown. */
export function getRepository(deps: AccountsDeps) {
  return async (req: accounts.GetRepositoryRequest__Output): Promise<accounts.GetRepositoryResponse> => ({
    repository: repositoryMessage(await repositoryById(deps, req.id)),
  });
}
