import type { PageDefinition } from '../registry.js';
import { branchesPage, deleteProtection, putProtection } from './branches.js';
import { collaboratorsPage, putCollaborator, removeCollaborator } from './collaborators.js';
import { addDeployKey, deleteDeployKey, deployKeysPage } from './deploy-keys.js';
import { generalPage, saveGeneral } from './general.js';
import { addWebhook, deleteWebhook, deliveryPage, webhookAction, webhookPage, webhooksPage } from './webhooks.js';

const S = '/:owner/:repo/-/settings';
export const settingsPages: PageDefinition[] = [
  { method: 'GET', path: S, signedIn: true, handle: (ctx, p) => generalPage(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: S, signedIn: true, handle: (ctx, p) => saveGeneral(ctx, p.owner!, p.repo!) },
  { method: 'GET', path: `${S}/collaborators`, signedIn: true, handle: (ctx, p) => collaboratorsPage(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/collaborators`, signedIn: true, handle: (ctx, p) => putCollaborator(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/collaborators/remove`, signedIn: true, handle: (ctx, p) => removeCollaborator(ctx, p.owner!, p.repo!) },
  { method: 'GET', path: `${S}/branches`, signedIn: true, handle: (ctx, p) => branchesPage(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/branches`, signedIn: true, handle: (ctx, p) => putProtection(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/branches/delete`, signedIn: true, handle: (ctx, p) => deleteProtection(ctx, p.owner!, p.repo!) },
  { method: 'GET', path: `${S}/keys`, signedIn: true, handle: (ctx, p) => deployKeysPage(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/keys`, signedIn: true, handle: (ctx, p) => addDeployKey(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/keys/:id/delete`, signedIn: true, handle: (ctx, p) => deleteDeployKey(ctx, p.owner!, p.repo!, p.id!) },
  { method: 'GET', path: `${S}/webhooks`, signedIn: true, handle: (ctx, p) => webhooksPage(ctx, p.owner!, p.repo!) },
  { method: 'POST', path: `${S}/webhooks`, signedIn: true, handle: (ctx, p) => addWebhook(ctx, p.owner!, p.repo!) },
  { method: 'GET', path: `${S}/webhooks/:id`, signedIn: true, handle: (ctx, p) => webhookPage(ctx, p.owner!, p.repo!, p.id!) },
  { method: 'POST', path: `${S}/webhooks/:id/delete`, signedIn: true, handle: (ctx, p) => deleteWebhook(ctx, p.owner!, p.repo!, p.id!) },
  { method: 'POST', path: `${S}/webhooks/:id/ping`, signedIn: true, handle: (ctx, p) => webhookAction(ctx, p.owner!, p.repo!, p.id!, undefined, 'pinged') },
  { method: 'GET', path: `${S}/webhooks/:id/deliveries/:delivery`, signedIn: true, handle: (ctx, p) => deliveryPage(ctx, p.owner!, p.repo!, p.id!, p.delivery!) },
  { method: 'POST', path: `${S}/webhooks/:id/deliveries/:delivery/redeliver`, signedIn: true, handle: (ctx, p) => webhookAction(ctx, p.owner!, p.repo!, p.id!, p.delivery!, 'redelivered') },
];
