import { callUnary } from '@githost/grpc';
import type { accounts, AccountsServiceClient } from '@githost/protos';

/** Typed wrappers: callUnary cannot infer response types through the generated overloads. */
export const rpc = (c: AccountsServiceClient) => ({
  authenticate: (req: accounts.AuthenticateRequest) => callUnary<accounts.AuthenticateRequest, accounts.AuthenticateResponse__Output>(c, c.Authenticate, req),
  authorize: (req: accounts.AuthorizeRequest) => callUnary<accounts.AuthorizeRequest, accounts.AuthorizeResponse__Output>(c, c.Authorize, req),
  getUsers: (req: accounts.GetUsersRequest) => callUnary<accounts.GetUsersRequest, accounts.GetUsersResponse__Output>(c, c.GetUsers, req),
  getRepository: (req: accounts.GetRepositoryRequest) => callUnary<accounts.GetRepositoryRequest, accounts.GetRepositoryResponse__Output>(c, c.GetRepository, req),
});

export const refPolicyOf = (c: AccountsServiceClient, repository_id: string) =>
  callUnary<accounts.GetRefPolicyRequest, accounts.GetRefPolicyResponse__Output>(c, c.GetRefPolicy, { repository_id });

export const adoptPushedBranches = (c: AccountsServiceClient, repository_id: string, branches: string[]) =>
  callUnary<accounts.AdoptPushedBranchesRequest, accounts.AdoptPushedBranchesResponse__Output>(c, c.AdoptPushedBranches, { repository_id, branches });
