import { callUnary, type GrpcMetrics } from '@githost/grpc';
import type { AccountsServiceClient, accounts } from '@githost/protos';
import type { UserDirectory } from '../domain/ports.js';
import type { UserRecord } from '../domain/types.js';

/** UserDirectory over accounts' GetUsers. */
export class AccountsUserDirectory implements UserDirectory {
  constructor(
    private readonly client: AccountsServiceClient,
    private readonly metrics?: GrpcMetrics,
    private readonly requestId?: string,
  ) {}

  /** The same directory, its calls tagged with a request id (x-request-id metadata). */
  forRequest(requestId: string): AccountsUserDirectory {
    return new AccountsUserDirectory(this.client, this.metrics, requestId);
  }

  async getUsers(ids: string[]): Promise<Map<string, UserRecord>> {
    const res = await callUnary<accounts.GetUsersRequest, accounts.GetUsersResponse__Output>(this.client, this.client.GetUsers, { ids }, { requestId: this.requestId, timeoutMs: 10_000, metrics: this.metrics });
    return new Map(res.users.map((u) => [u.id, { id: u.id, username: u.username, email: u.email }] as const));
  }

  async getUsersByName(usernames: string[]): Promise<Map<string, UserRecord>> {
    const res = await callUnary<accounts.GetUsersRequest, accounts.GetUsersResponse__Output>(this.client, this.client.GetUsers, { usernames }, { requestId: this.requestId, timeoutMs: 10_000, metrics: this.metrics });
    return new Map(res.users.filter((u) => usernames.includes(u.username)).map((u) => [u.username, { id: u.id, username: u.username, email: u.email }] as const));
  }
}
