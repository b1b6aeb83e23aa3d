import { unary, type grpc } from '@githost/grpc';
import type { Logger } from '@githost/logging';
import { accountsProto, type AccountsServiceHandlers } from '@githost/protos';
import type { AccountsServices } from '../domain/services.js';
import type { AccountsMetrics } from '../metrics.js';
import { adoptPushedBranches } from './adopt-pushed-branches.js';
import { authenticate } from './authenticate.js';
import { authorize } from './authorize.js';
import { getRefPolicy } from './get-ref-policy.js';
import { getRepository } from './get-repository.js';
import { getUsers } from './get-users.js';

/** Registers githost.accounts.v1.AccountsService on `server`. */
export function registerAccountsService(server: grpc.Server, services: AccountsServices, metrics: AccountsMetrics, logger: Logger): void {
  const instruments = { metrics: metrics.grpcServer };
  const handlers: AccountsServiceHandlers = {
    Authenticate: unary(authenticate(services.tokens, services.sessions, metrics), logger, instruments),
    Authorize: unary(authorize(services.repositories, metrics), logger, instruments),
    GetUsers: unary(getUsers(services.users), logger, instruments),
    GetRepository: unary(getRepository(services.repositories), logger, instruments),
    GetRefPolicy: unary(getRefPolicy(services.protections), logger, instruments),
    AdoptPushedBranches: unary(adoptPushedBranches(services.repositories), logger, instruments),
  };
  server.addService(accountsProto().githost.accounts.v1.AccountsService.service, handlers);
}
