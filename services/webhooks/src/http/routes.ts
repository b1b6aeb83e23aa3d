import { express, identityOf, route, type Request, type Response } from '@githost/http';
import { conflict, notFound } from '@githost/errors';
import type { WebhookRepository } from '../db/webhook-repository.js';
import type { DeliveryRepository } from '../db/delivery-repository.js';
import { pingWebhook } from '../domain/ping.js';
import { isRecordId, parseNewWebhook } from '../domain/webhook-input.js';
import { requireWritableRepo } from './access.js';
import { deliveryDetailJson, deliveryJson, webhookJson } from './serialize.js';

export interface RouteDeps {
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  /** Called after a redelivery is queued, so the worker picks it up now rather than at its next poll. */
  onQueued?: () => void;
}

const BASE = '/api/repos/:owner/:repo/webhooks';
const DEFAULT_DELIVERY_PAGE = 50;
const MAX_DELIVERY_PAGE = 100;

const param = (req: Request, name: string) => String(req.params[name] ?? '');

function decodedOrEmpty(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

export function webhookRoutes(deps: RouteDeps): express.Router {
  const router = express.Router();

  // seed §4 webhooks: POST, rules 1-3
  router.post(
    BASE,
    route(async (req, res) => {
      const repo = requireWritableRepo(res);
      const input = parseNewWebhook(req.body);
      res.status(201).json(webhookJson(await deps.webhooks.create(repo.id, input)));
    }),
  );

  router.get(
    BASE,
    route(async (_req, res) => {
      const repo = requireWritableRepo(res);
      res.json((await deps.webhooks.list(repo.id)).map(webhookJson));
    }),
  );

  // seed §4 webhooks rule 4: 204 whether or not a webhook of this repository had that id, even
  // one that does not percent-decode (CONTRACT §9): matched without parameters, which the router
  // would decode and refuse, and decoded here.
  router.delete(
    /^\/api\/repos\/[^/]+\/[^/]+\/webhooks\/[^/]+$/,
    route(async (req, res) => {
      res.locals.routeLabel = `${BASE}/:id`;
      const repo = requireWritableRepo(res);
      const id = decodedOrEmpty(req.path.slice(req.path.lastIndexOf('/') + 1));
      if (isRecordId(id)) await deps.webhooks.delete(repo.id, id);
      res.status(204).end();
    }),
  );

  // CONTRACT §9: a ping on request, to this webhook only
  router.post(
    `${BASE}/:id/pings`,
    route(async (req, res) => {
      const repo = requireWritableRepo(res);
      const identity = identityOf(res);
      await pingWebhook(deps, { repo, hookId: param(req, 'id'), sender: identity.principal?.username ?? '', requestId: identity.request_id });
      deps.onQueued?.();
      res.status(204).end();
    }),
  );

  router.get(
    `${BASE}/:id/deliveries`,
    route(async (req, res) => {
      const hookId = await ownWebhook(req, res, deps);
      res.json((await deps.deliveries.listForWebhook(hookId, pageSize(req.query.limit))).map(deliveryJson));
    }),
  );

  router.get(
    `${BASE}/:id/deliveries/:delivery_id`,
    route(async (req, res) => {
      const hookId = await ownWebhook(req, res, deps);
      const delivery = await findDelivery(req, hookId, deps);
      res.json(deliveryDetailJson(delivery, await deps.deliveries.attempts(delivery.id)));
    }),
  );

  router.post(
    `${BASE}/:id/deliveries/:delivery_id/redeliver`,
    route(async (req, res) => {
      const hookId = await ownWebhook(req, res, deps);
      const delivery = await findDelivery(req, hookId, deps);
      const queued = await deps.deliveries.redeliver(hookId, delivery.id);
      if (!queued) throw conflict('Delivery is still pending');
      deps.onQueued?.();
      res.status(202).json(deliveryJson(queued));
    }),
  );

  return router;
}

/** The webhook named in the path, only when it belongs to this repository. */
async function ownWebhook(req: Request, res: Response, deps: RouteDeps): Promise<string> {
  const repo = requireWritableRepo(res);
  const id = param(req, 'id');
  const hook = isRecordId(id) ? await deps.webhooks.find(repo.id, id) : null;
  if (!hook) throw notFound('Webhook not found');
  return hook.id;
}

async function findDelivery(req: Request, hookId: string, deps: RouteDeps) {
  const id = param(req, 'delivery_id');
  const delivery = isRecordId(id) ? await deps.deliveries.find(hookId, id) : null;
  if (!delivery) throw notFound('Delivery not found');
  return delivery;
}

function pageSize(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1) return DEFAULT_DELIVERY_PAGE;
  return Math.min(n, MAX_DELIVERY_PAGE);
}
