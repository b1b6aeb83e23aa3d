import { express, identityOf, route, type Request, type Response } from '@githost/http';
import type { Requester } from '../domain/access.js';
import { createWebhook, deleteWebhook, getDelivery, getWebhook, listDeliveries, listWebhooks, pingOnRequest, redeliver, updateWebhook, type WebhookPorts } from '../domain/webhooks.js';
import { deliveryDetailJson, deliveryJson, webhookJson, webhookSettingsJson } from './serialize.js';

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

function decodedOrEmpty(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
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

  // seed §4 webhooks rule 4: 204 whether or not a webhook of this repository had that id, even
  // one that does not percent-decode (CONTRACT §9): matched without parameters, which the router
  // would decode and refuse, and decoded here.
  router.delete(
    /^\/api\/repos\/[^/]+\/[^/]+\/webhooks\/[^/]+$/,
    route(async (req, res) => {
      res.locals.routeLabel = `${BASE}/:id`;
      await deleteWebhook(deps, requesterOf(res), decodedOrEmpty(req.path.slice(req.path.lastIndexOf('/') + 1)));
      res.status(204).end();
    }),
  );

  // After the DELETE above: matching `:id` decodes it, which would refuse the DELETE's malformed ids.
  router.get(
    `${BASE}/:id`,
    route(async (req, res) => {
      res.json(webhookSettingsJson(await getWebhook(deps, requesterOf(res), param(req, 'id'))));
    }),
  );

  router.patch(
    `${BASE}/:id`,
    route(async (req, res) => {
      res.json(webhookSettingsJson(await updateWebhook(deps, requesterOf(res), param(req, 'id'), req.body)));
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
