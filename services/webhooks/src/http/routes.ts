import { express, identityOf, route, type Request, type Response } from '@githost/http';
import type { Requester } from '../domain/access.js';
import { createWebhook, deleteWebhook, getDelivery, listDeliveries, listWebhooks, pingOnRequest, redeliver, type WebhookPorts } from '../domain/webhooks.js';
import { deliveryDetailJson, deliveryJson, webhookJson } from './serialize.js';

export interface RouteDeps extends WebhookPorts {
  /** Called after a delivery is queued, so the worker picks it up now rather than at its next poll. */
  onQueued?: () => void;
}

const BASE = '/api/repos/:owner/:repo/webhooks';

const param = (req: Request, name: string) => String(req.params[name] ?? '');

function requesterOf(res: Response): Requester {
  const identity = identityOf(res);
  return { username: identity.principal?.username ?? null, repo: identity.repo ?? null, requestId: identity.request_id };
}

/** The gateway forwards these paths unchanged; the repository comes from the signed identity. */
export function webhookRoutes(deps: RouteDeps): express.Router {
  const router = express.Router();

  router.post(
    BASE,
    route(async (req, res) => {
      res.status(201).json(webhookJson(await createWebhook(deps, requesterOf(res), req.body)));
    }),
  );

  router.get(
    BASE,
    route(async (_req, res) => {
      res.json((await listWebhooks(deps, requesterOf(res))).map(webhookJson));
    }),
  );

  router.delete(
    `${BASE}/:id`,
    route(async (req, res) => {
      await deleteWebhook(deps, requesterOf(res), param(req, 'id'));
      res.status(204).end();
    }),
  );

  router.post(
    `${BASE}/:id/pings`,
    route(async (req, res) => {
      await pingOnRequest(deps, requesterOf(res), param(req, 'id'));
      deps.onQueued?.();
      res.status(204).end();
    }),
  );

  router.get(
    `${BASE}/:id/deliveries`,
    route(async (req, res) => {
      res.json((await listDeliveries(deps, requesterOf(res), param(req, 'id'), req.query.limit)).map(deliveryJson));
    }),
  );

  router.get(
    `${BASE}/:id/deliveries/:delivery_id`,
    route(async (req, res) => {
      const { delivery, attempts } = await getDelivery(deps, requesterOf(res), param(req, 'id'), param(req, 'delivery_id'));
      res.json(deliveryDetailJson(delivery, attempts));
    }),
  );

  router.post(
    `${BASE}/:id/deliveries/:delivery_id/redeliver`,
    route(async (req, res) => {
      const queued = await redeliver(deps, requesterOf(res), param(req, 'id'), param(req, 'delivery_id'));
      deps.onQueued?.();
      res.status(202).json(deliveryJson(queued));
    }),
  );

  return router;
}
