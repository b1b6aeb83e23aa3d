import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AccountsServiceClient as _githost_accounts_v1_AccountsServiceClient, AccountsServiceDefinition as _githost_accounts_v1_AccountsServiceDefinition } from './githost/accounts/v1/AccountsService.js';
import type { AdoptPushedBranchesRequest as _githost_accounts_v1_AdoptPushedBranchesRequest, AdoptPushedBranchesRequest__Output as _githost_accounts_v1_AdoptPushedBranchesRequest__Output } from './githost/accounts/v1/AdoptPushedBranchesRequest.js';
import type { AdoptPushedBranchesResponse as _githost_accounts_v1_AdoptPushedBranchesResponse, AdoptPushedBranchesResponse__Output as _githost_accounts_v1_AdoptPushedBranchesResponse__Output } from './githost/accounts/v1/AdoptPushedBranchesResponse.js';
import type { AuthenticateRequest as _githost_accounts_v1_AuthenticateRequest, AuthenticateRequest__Output as _githost_accounts_v1_AuthenticateRequest__Output } from './githost/accounts/v1/AuthenticateRequest.js';
import type { AuthenticateResponse as _githost_accounts_v1_AuthenticateResponse, AuthenticateResponse__Output as _githost_accounts_v1_AuthenticateResponse__Output } from './githost/accounts/v1/AuthenticateResponse.js';
import type { AuthorizeRequest as _githost_accounts_v1_AuthorizeRequest, AuthorizeRequest__Output as _githost_accounts_v1_AuthorizeRequest__Output } from './githost/accounts/v1/AuthorizeRequest.js';
import type { AuthorizeResponse as _githost_accounts_v1_AuthorizeResponse, AuthorizeResponse__Output as _githost_accounts_v1_AuthorizeResponse__Output } from './githost/accounts/v1/AuthorizeResponse.js';
import type { BranchProtection as _githost_accounts_v1_BranchProtection, BranchProtection__Output as _githost_accounts_v1_BranchProtection__Output } from './githost/accounts/v1/BranchProtection.js';
import type { GetRefPolicyRequest as _githost_accounts_v1_GetRefPolicyRequest, GetRefPolicyRequest__Output as _githost_accounts_v1_GetRefPolicyRequest__Output } from './githost/accounts/v1/GetRefPolicyRequest.js';
import type { GetRefPolicyResponse as _githost_accounts_v1_GetRefPolicyResponse, GetRefPolicyResponse__Output as _githost_accounts_v1_GetRefPolicyResponse__Output } from './githost/accounts/v1/GetRefPolicyResponse.js';
import type { GetRepositoryRequest as _githost_accounts_v1_GetRepositoryRequest, GetRepositoryRequest__Output as _githost_accounts_v1_GetRepositoryRequest__Output } from './githost/accounts/v1/GetRepositoryRequest.js';
import type { GetRepositoryResponse as _githost_accounts_v1_GetRepositoryResponse, GetRepositoryResponse__Output as _githost_accounts_v1_GetRepositoryResponse__Output } from './githost/accounts/v1/GetRepositoryResponse.js';
import type { GetUsersRequest as _githost_accounts_v1_GetUsersRequest, GetUsersRequest__Output as _githost_accounts_v1_GetUsersRequest__Output } from './githost/accounts/v1/GetUsersRequest.js';
import type { GetUsersResponse as _githost_accounts_v1_GetUsersResponse, GetUsersResponse__Output as _githost_accounts_v1_GetUsersResponse__Output } from './githost/accounts/v1/GetUsersResponse.js';
import type { LookupSshKeyRequest as _githost_accounts_v1_LookupSshKeyRequest, LookupSshKeyRequest__Output as _githost_accounts_v1_LookupSshKeyRequest__Output } from './githost/accounts/v1/LookupSshKeyRequest.js';
import type { LookupSshKeyResponse as _githost_accounts_v1_LookupSshKeyResponse, LookupSshKeyResponse__Output as _githost_accounts_v1_LookupSshKeyResponse__Output } from './githost/accounts/v1/LookupSshKeyResponse.js';
import type { Repository as _githost_accounts_v1_Repository, Repository__Output as _githost_accounts_v1_Repository__Output } from './githost/accounts/v1/Repository.js';
import type { User as _githost_accounts_v1_User, User__Output as _githost_accounts_v1_User__Output } from './githost/accounts/v1/User.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  githost: {
    accounts: {
      v1: {
        AccountsService: SubtypeConstructor<typeof grpc.Client, _githost_accounts_v1_AccountsServiceClient> & { service: _githost_accounts_v1_AccountsServiceDefinition }
        AdoptPushedBranchesRequest: MessageTypeDefinition<_githost_accounts_v1_AdoptPushedBranchesRequest, _githost_accounts_v1_AdoptPushedBranchesRequest__Output>
        AdoptPushedBranchesResponse: MessageTypeDefinition<_githost_accounts_v1_AdoptPushedBranchesResponse, _githost_accounts_v1_AdoptPushedBranchesResponse__Output>
        AuthenticateRequest: MessageTypeDefinition<_githost_accounts_v1_AuthenticateRequest, _githost_accounts_v1_AuthenticateRequest__Output>
        AuthenticateResponse: MessageTypeDefinition<_githost_accounts_v1_AuthenticateResponse, _githost_accounts_v1_AuthenticateResponse__Output>
        AuthorizeRequest: MessageTypeDefinition<_githost_accounts_v1_AuthorizeRequest, _githost_accounts_v1_AuthorizeRequest__Output>
        AuthorizeResponse: MessageTypeDefinition<_githost_accounts_v1_AuthorizeResponse, _githost_accounts_v1_AuthorizeResponse__Output>
        BranchProtection: MessageTypeDefinition<_githost_accounts_v1_BranchProtection, _githost_accounts_v1_BranchProtection__Output>
        GetRefPolicyRequest: MessageTypeDefinition<_githost_accounts_v1_GetRefPolicyRequest, _githost_accounts_v1_GetRefPolicyRequest__Output>
        GetRefPolicyResponse: MessageTypeDefinition<_githost_accounts_v1_GetRefPolicyResponse, _githost_accounts_v1_GetRefPolicyResponse__Output>
        GetRepositoryRequest: MessageTypeDefinition<_githost_accounts_v1_GetRepositoryRequest, _githost_accounts_v1_GetRepositoryRequest__Output>
        GetRepositoryResponse: MessageTypeDefinition<_githost_accounts_v1_GetRepositoryResponse, _githost_accounts_v1_GetRepositoryResponse__Output>
        GetUsersRequest: MessageTypeDefinition<_githost_accounts_v1_GetUsersRequest, _githost_accounts_v1_GetUsersRequest__Output>
        GetUsersResponse: MessageTypeDefinition<_githost_accounts_v1_GetUsersResponse, _githost_accounts_v1_GetUsersResponse__Output>
        LookupSshKeyRequest: MessageTypeDefinition<_githost_accounts_v1_LookupSshKeyRequest, _githost_accounts_v1_LookupSshKeyRequest__Output>
        LookupSshKeyResponse: MessageTypeDefinition<_githost_accounts_v1_LookupSshKeyResponse, _githost_accounts_v1_LookupSshKeyResponse__Output>
        Repository: MessageTypeDefinition<_githost_accounts_v1_Repository, _githost_accounts_v1_Repository__Output>
        User: MessageTypeDefinition<_githost_accounts_v1_User, _githost_accounts_v1_User__Output>
      }
    }
  }
}

