import { callUnary } from '@githost/grpc';
import { createStorageClient, type StorageServiceClient } from '@githost/protos';
import type { RepositoryStorage } from '../domain/ports.js';

/** git-storage over gRPC; statuses come back as AppErrors (unreachable -> unavailable, 503). */
export class GrpcRepositoryStorage implements RepositoryStorage {
  private readonly client: StorageServiceClient;

  constructor(address: string) {
    this.client = createStorageClient(address);
  }

  async createRepository(repositoryId: string, defaultBranch: string): Promise<void> {
    await callUnary(this.client, this.client.CreateRepository, { repository_id: repositoryId, default_branch: defaultBranch }, { timeoutMs: 15_000 });
  }

  async removeRepository(repositoryId: string): Promise<void> {
    await callUnary(this.client, this.client.RemoveRepository, { repository_id: repositoryId }, { timeoutMs: 15_000 });
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
