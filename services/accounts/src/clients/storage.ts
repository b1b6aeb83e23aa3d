import { callUnary } from '@githost/grpc';
import { createStorageClient, type StorageServiceClient } from '@githost/protos';
import type { CallContext, RepositoryStorage } from '../domain/ports.js';

/** Creating an empty bare repository is quick; a slow answer means storage is in trouble. */
const CALL_TIMEOUT_MS = 15_000;

/** git-storage over gRPC; statuses come back as AppErrors (unreachable -> unavailable, 503). */
export class GrpcRepositoryStorage implements RepositoryStorage {
  private readonly client: StorageServiceClient;

  constructor(address: string) {
    this.client = createStorageClient(address);
  }

  async createRepository(repositoryId: string, defaultBranch: string, ctx: CallContext = {}): Promise<void> {
    await callUnary(this.client, this.client.CreateRepository, { repository_id: repositoryId, default_branch: defaultBranch }, { requestId: ctx.requestId, timeoutMs: CALL_TIMEOUT_MS });
  }

  async removeRepository(repositoryId: string, ctx: CallContext = {}): Promise<void> {
    await callUnary(this.client, this.client.RemoveRepository, { repository_id: repositoryId }, { requestId: ctx.requestId, timeoutMs: CALL_TIMEOUT_MS });
  }

  /** For /readyz: whether a channel to git-storage can be established now. */
  ready(timeoutMs = 1000): Promise<boolean> {
    return new Promise((resolve) => {
      this.client.waitForReady(Date.now() + timeoutMs, (err) => resolve(!err));
    });
  }

  close(): void {
    this.client.close();
  }
}
