import { unary, type grpc } from '@githost/grpc';
import type { Logger } from '@githost/logging';
import { accountsProto, type AccountsServiceHandlers } from '@githost/protos';
import type { AccountsDeps } from '../domain/deps.js';
import type { AccountsMetrics } from '../metrics.js';
import { adoptPushedBranches } from './adopt-pushed-branches.js';
import { authenticate } from './authenticate.js';
import { authorize } from './authorize.js';
import { getRefPolicy } from './get-ref-policy.js';
import { getRepository } from './get-repository.js';
import { getUsers } from './get-users.js';
import { lookupSshKeyHandler } from './lookup-ssh-key.js';

/** Registers githost.accounts.v1.AccountsService on `server`. */
export function registerAccountsService(server: grpc.Server, deps: AccountsDeps, metrics: AccountsMetrics, logger: Logger): void {
  const instruments = { metrics: metrics.grpcServer };
  const handlers: AccountsServiceHandlers = {
    Authenticate: unary(authenticate(deps, metrics), logger, instruments),
    Authorize: unary(authorize(deps, metrics), logger, instruments),
    GetUsers: unary(getUsers(deps), logger, instruments),
    GetRepository: unary(getRepository(deps), logger, instruments),
    GetRefPolicy: unary(getRefPolicy(deps), logger, instruments),
    AdoptPushedBranches: unary(adoptPushedBranches(deps), logger, instruments),
    LookupSshKey: unary(lookupSshKeyHandler(deps), logger, instruments),
  };
  server.addService(accountsProto().githost.accounts.v1.AccountsService.service, handlers);
}
