/** What the webhook use cases need from storage; db/ implements them. */

export interface WebhookStore {
  /** The webhook `id` of repository `repoId`, or null (another repository's counts as absent). */
  find(repoId: string, id: string): Promise<{ id: string } | null>;
  /** Deletes every webhook of the repository with its deliveries and their attempts; how many webhooks went. */
  deleteForRepository(repoId: string): Promise<number>;
}

export interface DirectDelivery {
  webhookId: string;
  /** The X-Githost-Event value. */
  event: string;
  payload: unknown;
  requestId?: string;
}

export interface DeliveryStore {
  /** Records one pending delivery outside event selection (a ping); its id. */
  recordDirect(delivery: DirectDelivery): Promise<string>;
}
