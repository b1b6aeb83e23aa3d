import client from 'prom-client';
import { ownGateway } from '@githost/api-client';
import { createHttpApp, createRegistry, express, serveHttp, type MetricsEndpoint, type ServingHttp } from '@githost/http';
import { createLogger, type Logger } from '@githost/logging';
import type { Service } from '@githost/runtime';
import type { Config } from './config.js';
import { giteaErrors, giteaNotFound } from './http/errors.js';
import { siteRoutes } from './site/routes.js';
import { userRoutes } from './users/routes.js';
import { repoRoutes } from './repos/routes.js';
import { contentRoutes } from './content/routes.js';
import { pullRoutes } from './pulls/routes.js';
import { reviewRoutes } from './reviews/routes.js';
import { statusRoutes } from './statuses/routes.js';
import { hookRoutes } from './hooks/routes.js';
import { disabledUnitRoutes } from './disabled-units/routes.js';

export interface ServerDeps {
  logger?: Logger;
  /** The launcher's shared /metrics listener (embedded mode); without it, METRICS_PORT is this service's own. */
  metricsEndpoint?: MetricsEndpoint;
}

/**
 * Gitea's REST API under /api/v1, answered from githost's own API called through the gateway as
 * the caller (docs/decisions/gitea-api.md#a-face-over-the-api): stateless, any number of copies.
 * Each feature is one router mounted here, one line each.
 */
export function createServer(config: Config, deps: ServerDeps = {}): Service<{ httpPort: number; metricsPort: number }> {
  const logger = deps.logger ?? createLogger('gitea-api');
  const registry = createRegistry('gitea-api');
  // Ready when the API it answers from answers: its own gateway while its check has it up, or else
  // the fallback (docs/decisions/replicas.md#a-partner-that-hangs).
  const fallbackUrl = config.gatewayFallbackUrl;
  const partnerDown = fallbackUrl === undefined ? undefined : new client.Gauge({ name: 'githost_gitea_api_gateway_partner_down', help: 'Whether the face\'s own gateway failed its health checks (1), its calls sent to GATEWAY_FALLBACK_URL, or answers them (0)', registers: [registry] });
  partnerDown?.set(0);
  const { partner: gatewayPartner, ready: gateway } = ownGateway({ url: config.gatewayUrl, fallbackUrl, logger, onChange: (up) => partnerDown?.set(up ? 0 : 1) });
  const app = createHttpApp({ service: 'gitea-api', logger, ready: { gateway }, registry, json: false });
  const features = { config: { ...config, gatewayPartner } };
  const api = express.Router();
  // Gitea reads a body as JSON whatever its Content-Type; gitea-js sends some (review requests) without one.
  api.use(express.json({ limit: '1mb', type: () => true }));
  api.use(siteRoutes());
  api.use(userRoutes(features));
  api.use(repoRoutes(features));
  api.use(contentRoutes(features));
  api.use(pullRoutes(features));
  api.use(reviewRoutes(features));
  api.use(statusRoutes(features));
  api.use(hookRoutes(features));
  api.use(disabledUnitRoutes(features));
  api.use(giteaNotFound(config.publicUrl));
  app.use('/api/v1', api);
  app.use(giteaNotFound(config.publicUrl));
  app.use(giteaErrors(config.publicUrl));

  let serving: ServingHttp | undefined;
  return {
    async start() {
      serving = await serveHttp(app, registry, config, { service: 'gitea-api', logger, metricsEndpoint: deps.metricsEndpoint });
      gatewayPartner?.start();
      return serving.ports;
    },
    async stop() {
      gatewayPartner?.stop();
      await serving?.close();
      serving = undefined;
    },
  };
}
