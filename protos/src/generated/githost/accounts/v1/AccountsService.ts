// Original file: githost/accounts/v1/accounts.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AdoptPushedBranchesRequest as _githost_accounts_v1_AdoptPushedBranchesRequest, AdoptPushedBranchesRequest__Output as _githost_accounts_v1_AdoptPushedBranchesRequest__Output } from '../../../githost/accounts/v1/AdoptPushedBranchesRequest.js';
import type { AdoptPushedBranchesResponse as _githost_accounts_v1_AdoptPushedBranchesResponse, AdoptPushedBranchesResponse__Output as _githost_accounts_v1_AdoptPushedBranchesResponse__Output } from '../../../githost/accounts/v1/AdoptPushedBranchesResponse.js';
import type { AuthenticateRequest as _githost_accounts_v1_AuthenticateRequest, AuthenticateRequest__Output as _githost_accounts_v1_AuthenticateRequest__Output } from '../../../githost/accounts/v1/AuthenticateRequest.js';
import type { AuthenticateResponse as _githost_accounts_v1_AuthenticateResponse, AuthenticateResponse__Output as _githost_accounts_v1_AuthenticateResponse__Output } from '../../../githost/accounts/v1/AuthenticateResponse.js';
import type { AuthorizeRequest as _githost_accounts_v1_AuthorizeRequest, AuthorizeRequest__Output as _githost_accounts_v1_AuthorizeRequest__Output } from '../../../githost/accounts/v1/AuthorizeRequest.js';
import type { AuthorizeResponse as _githost_accounts_v1_AuthorizeResponse, AuthorizeResponse__Output as _githost_accounts_v1_AuthorizeResponse__Output } from '../../../githost/accounts/v1/AuthorizeResponse.js';
import type { GetRefPolicyRequest as _githost_accounts_v1_GetRefPolicyRequest, GetRefPolicyRequest__Output as _githost_accounts_v1_GetRefPolicyRequest__Output } from '../../../githost/accounts/v1/GetRefPolicyRequest.js';
import type { GetRefPolicyResponse as _githost_accounts_v1_GetRefPolicyResponse, GetRefPolicyResponse__Output as _githost_accounts_v1_GetRefPolicyResponse__Output } from '../../../githost/accounts/v1/GetRefPolicyResponse.js';
import type { GetRepositoryRequest as _githost_accounts_v1_GetRepositoryRequest, GetRepositoryRequest__Output as _githost_accounts_v1_GetRepositoryRequest__Output } from '../../../githost/accounts/v1/GetRepositoryRequest.js';
import type { GetRepositoryResponse as _githost_accounts_v1_GetRepositoryResponse, GetRepositoryResponse__Output as _githost_accounts_v1_GetRepositoryResponse__Output } from '../../../githost/accounts/v1/GetRepositoryResponse.js';
import type { GetUsersRequest as _githost_accounts_v1_GetUsersRequest, GetUsersRequest__Output as _githost_accounts_v1_GetUsersRequest__Output } from '../../../githost/accounts/v1/GetUsersRequest.js';
import type { GetUsersResponse as _githost_accounts_v1_GetUsersResponse, GetUsersResponse__Output as _githost_accounts_v1_GetUsersResponse__Output } from '../../../githost/accounts/v1/GetUsersResponse.js';
import type { LookupSshKeyRequest as _githost_accounts_v1_LookupSshKeyRequest, LookupSshKeyRequest__Output as _githost_accounts_v1_LookupSshKeyRequest__Output } from '../../../githost/accounts/v1/LookupSshKeyRequest.js';
import type { LookupSshKeyResponse as _githost_accounts_v1_LookupSshKeyResponse, LookupSshKeyResponse__Output as _githost_accounts_v1_LookupSshKeyResponse__Output } from '../../../githost/accounts/v1/LookupSshKeyResponse.js';

export interface AccountsServiceClient extends grpc.Client {
  AdoptPushedBranches(argument: _githost_accounts_v1_AdoptPushedBranchesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AdoptPushedBranchesResponse__Output>): grpc.ClientUnaryCall;
  AdoptPushedBranches(argument: _githost_accounts_v1_AdoptPushedBranchesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_AdoptPushedBranchesResponse__Output>): grpc.ClientUnaryCall;
  AdoptPushedBranches(argument: _githost_accounts_v1_AdoptPushedBranchesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AdoptPushedBranchesResponse__Output>): grpc.ClientUnaryCall;
  AdoptPushedBranches(argument: _githost_accounts_v1_AdoptPushedBranchesRequest, callback: grpc.requestCallback<_githost_accounts_v1_AdoptPushedBranchesResponse__Output>): grpc.ClientUnaryCall;
  adoptPushedBranches(argument: _githost_accounts_v1_AdoptPushedBranchesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AdoptPushedBranchesResponse__Output>): grpc.ClientUnaryCall;
  adoptPushedBranches(argument: _githost_accounts_v1_AdoptPushedBranchesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_AdoptPushedBranchesResponse__Output>): grpc.ClientUnaryCall;
  adoptPushedBranches(argument: _githost_accounts_v1_AdoptPushedBranchesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AdoptPushedBranchesResponse__Output>): grpc.ClientUnaryCall;
  adoptPushedBranches(argument: _githost_accounts_v1_AdoptPushedBranchesRequest, callback: grpc.requestCallback<_githost_accounts_v1_AdoptPushedBranchesResponse__Output>): grpc.ClientUnaryCall;
  
  Authenticate(argument: _githost_accounts_v1_AuthenticateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  Authenticate(argument: _githost_accounts_v1_AuthenticateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  Authenticate(argument: _githost_accounts_v1_AuthenticateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  Authenticate(argument: _githost_accounts_v1_AuthenticateRequest, callback: grpc.requestCallback<_githost_accounts_v1_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  authenticate(argument: _githost_accounts_v1_AuthenticateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  authenticate(argument: _githost_accounts_v1_AuthenticateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  authenticate(argument: _githost_accounts_v1_AuthenticateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  authenticate(argument: _githost_accounts_v1_AuthenticateRequest, callback: grpc.requestCallback<_githost_accounts_v1_AuthenticateResponse__Output>): grpc.ClientUnaryCall;
  
  Authorize(argument: _githost_accounts_v1_AuthorizeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AuthorizeResponse__Output>): grpc.ClientUnaryCall;
  Authorize(argument: _githost_accounts_v1_AuthorizeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_AuthorizeResponse__Output>): grpc.ClientUnaryCall;
  Authorize(argument: _githost_accounts_v1_AuthorizeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AuthorizeResponse__Output>): grpc.ClientUnaryCall;
  Authorize(argument: _githost_accounts_v1_AuthorizeRequest, callback: grpc.requestCallback<_githost_accounts_v1_AuthorizeResponse__Output>): grpc.ClientUnaryCall;
  authorize(argument: _githost_accounts_v1_AuthorizeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AuthorizeResponse__Output>): grpc.ClientUnaryCall;
  authorize(argument: _githost_accounts_v1_AuthorizeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_AuthorizeResponse__Output>): grpc.ClientUnaryCall;
  authorize(argument: _githost_accounts_v1_AuthorizeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_AuthorizeResponse__Output>): grpc.ClientUnaryCall;
  authorize(argument: _githost_accounts_v1_AuthorizeRequest, callback: grpc.requestCallback<_githost_accounts_v1_AuthorizeResponse__Output>): grpc.ClientUnaryCall;
  
  GetRefPolicy(argument: _githost_accounts_v1_GetRefPolicyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetRefPolicyResponse__Output>): grpc.ClientUnaryCall;
  GetRefPolicy(argument: _githost_accounts_v1_GetRefPolicyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_GetRefPolicyResponse__Output>): grpc.ClientUnaryCall;
  GetRefPolicy(argument: _githost_accounts_v1_GetRefPolicyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetRefPolicyResponse__Output>): grpc.ClientUnaryCall;
  GetRefPolicy(argument: _githost_accounts_v1_GetRefPolicyRequest, callback: grpc.requestCallback<_githost_accounts_v1_GetRefPolicyResponse__Output>): grpc.ClientUnaryCall;
  getRefPolicy(argument: _githost_accounts_v1_GetRefPolicyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetRefPolicyResponse__Output>): grpc.ClientUnaryCall;
  getRefPolicy(argument: _githost_accounts_v1_GetRefPolicyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_GetRefPolicyResponse__Output>): grpc.ClientUnaryCall;
  getRefPolicy(argument: _githost_accounts_v1_GetRefPolicyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetRefPolicyResponse__Output>): grpc.ClientUnaryCall;
  getRefPolicy(argument: _githost_accounts_v1_GetRefPolicyRequest, callback: grpc.requestCallback<_githost_accounts_v1_GetRefPolicyResponse__Output>): grpc.ClientUnaryCall;
  
  GetRepository(argument: _githost_accounts_v1_GetRepositoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetRepositoryResponse__Output>): grpc.ClientUnaryCall;
  GetRepository(argument: _githost_accounts_v1_GetRepositoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_GetRepositoryResponse__Output>): grpc.ClientUnaryCall;
  GetRepository(argument: _githost_accounts_v1_GetRepositoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetRepositoryResponse__Output>): grpc.ClientUnaryCall;
  GetRepository(argument: _githost_accounts_v1_GetRepositoryRequest, callback: grpc.requestCallback<_githost_accounts_v1_GetRepositoryResponse__Output>): grpc.ClientUnaryCall;
  getRepository(argument: _githost_accounts_v1_GetRepositoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetRepositoryResponse__Output>): grpc.ClientUnaryCall;
  getRepository(argument: _githost_accounts_v1_GetRepositoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_GetRepositoryResponse__Output>): grpc.ClientUnaryCall;
  getRepository(argument: _githost_accounts_v1_GetRepositoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetRepositoryResponse__Output>): grpc.ClientUnaryCall;
  getRepository(argument: _githost_accounts_v1_GetRepositoryRequest, callback: grpc.requestCallback<_githost_accounts_v1_GetRepositoryResponse__Output>): grpc.ClientUnaryCall;
  
  GetUsers(argument: _githost_accounts_v1_GetUsersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetUsersResponse__Output>): grpc.ClientUnaryCall;
  GetUsers(argument: _githost_accounts_v1_GetUsersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_GetUsersResponse__Output>): grpc.ClientUnaryCall;
  GetUsers(argument: _githost_accounts_v1_GetUsersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetUsersResponse__Output>): grpc.ClientUnaryCall;
  GetUsers(argument: _githost_accounts_v1_GetUsersRequest, callback: grpc.requestCallback<_githost_accounts_v1_GetUsersResponse__Output>): grpc.ClientUnaryCall;
  getUsers(argument: _githost_accounts_v1_GetUsersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetUsersResponse__Output>): grpc.ClientUnaryCall;
  getUsers(argument: _githost_accounts_v1_GetUsersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_GetUsersResponse__Output>): grpc.ClientUnaryCall;
  getUsers(argument: _githost_accounts_v1_GetUsersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_GetUsersResponse__Output>): grpc.ClientUnaryCall;
  getUsers(argument: _githost_accounts_v1_GetUsersRequest, callback: grpc.requestCallback<_githost_accounts_v1_GetUsersResponse__Output>): grpc.ClientUnaryCall;
  
  LookupSshKey(argument: _githost_accounts_v1_LookupSshKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_LookupSshKeyResponse__Output>): grpc.ClientUnaryCall;
  LookupSshKey(argument: _githost_accounts_v1_LookupSshKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_LookupSshKeyResponse__Output>): grpc.ClientUnaryCall;
  LookupSshKey(argument: _githost_accounts_v1_LookupSshKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_LookupSshKeyResponse__Output>): grpc.ClientUnaryCall;
  LookupSshKey(argument: _githost_accounts_v1_LookupSshKeyRequest, callback: grpc.requestCallback<_githost_accounts_v1_LookupSshKeyResponse__Output>): grpc.ClientUnaryCall;
  lookupSshKey(argument: _githost_accounts_v1_LookupSshKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_LookupSshKeyResponse__Output>): grpc.ClientUnaryCall;
  lookupSshKey(argument: _githost_accounts_v1_LookupSshKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_accounts_v1_LookupSshKeyResponse__Output>): grpc.ClientUnaryCall;
  lookupSshKey(argument: _githost_accounts_v1_LookupSshKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_accounts_v1_LookupSshKeyResponse__Output>): grpc.ClientUnaryCall;
  lookupSshKey(argument: _githost_accounts_v1_LookupSshKeyRequest, callback: grpc.requestCallback<_githost_accounts_v1_LookupSshKeyResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface AccountsServiceHandlers extends grpc.UntypedServiceImplementation {
  AdoptPushedBranches: grpc.handleUnaryCall<_githost_accounts_v1_AdoptPushedBranchesRequest__Output, _githost_accounts_v1_AdoptPushedBranchesResponse>;
  
  Authenticate: grpc.handleUnaryCall<_githost_accounts_v1_AuthenticateRequest__Output, _githost_accounts_v1_AuthenticateResponse>;
  
  Authorize: grpc.handleUnaryCall<_githost_accounts_v1_AuthorizeRequest__Output, _githost_accounts_v1_AuthorizeResponse>;
  
  GetRefPolicy: grpc.handleUnaryCall<_githost_accounts_v1_GetRefPolicyRequest__Output, _githost_accounts_v1_GetRefPolicyResponse>;
  
  GetRepository: grpc.handleUnaryCall<_githost_accounts_v1_GetRepositoryRequest__Output, _githost_accounts_v1_GetRepositoryResponse>;
  
  GetUsers: grpc.handleUnaryCall<_githost_accounts_v1_GetUsersRequest__Output, _githost_accounts_v1_GetUsersResponse>;
  
  LookupSshKey: grpc.handleUnaryCall<_githost_accounts_v1_LookupSshKeyRequest__Output, _githost_accounts_v1_LookupSshKeyResponse>;
  
}

export interface AccountsServiceDefinition extends grpc.ServiceDefinition {
  AdoptPushedBranches: MethodDefinition<_githost_accounts_v1_AdoptPushedBranchesRequest, _githost_accounts_v1_AdoptPushedBranchesResponse, _githost_accounts_v1_AdoptPushedBranchesRequest__Output, _githost_accounts_v1_AdoptPushedBranchesResponse__Output>
  Authenticate: MethodDefinition<_githost_accounts_v1_AuthenticateRequest, _githost_accounts_v1_AuthenticateResponse, _githost_accounts_v1_AuthenticateRequest__Output, _githost_accounts_v1_AuthenticateResponse__Output>
  Authorize: MethodDefinition<_githost_accounts_v1_AuthorizeRequest, _githost_accounts_v1_AuthorizeResponse, _githost_accounts_v1_AuthorizeRequest__Output, _githost_accounts_v1_AuthorizeResponse__Output>
  GetRefPolicy: MethodDefinition<_githost_accounts_v1_GetRefPolicyRequest, _githost_accounts_v1_GetRefPolicyResponse, _githost_accounts_v1_GetRefPolicyRequest__Output, _githost_accounts_v1_GetRefPolicyResponse__Output>
  GetRepository: MethodDefinition<_githost_accounts_v1_GetRepositoryRequest, _githost_accounts_v1_GetRepositoryResponse, _githost_accounts_v1_GetRepositoryRequest__Output, _githost_accounts_v1_GetRepositoryResponse__Output>
  GetUsers: MethodDefinition<_githost_accounts_v1_GetUsersRequest, _githost_accounts_v1_GetUsersResponse, _githost_accounts_v1_GetUsersRequest__Output, _githost_accounts_v1_GetUsersResponse__Output>
  LookupSshKey: MethodDefinition<_githost_accounts_v1_LookupSshKeyRequest, _githost_accounts_v1_LookupSshKeyResponse, _githost_accounts_v1_LookupSshKeyRequest__Output, _githost_accounts_v1_LookupSshKeyResponse__Output>
}
